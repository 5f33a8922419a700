import { crc32c } from '@node-rs/crc32';
import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../test-fixtures/load-fixture.js';
import { BatchOffsets, CompressionType } from './batch-header.js';
import { forEachBatch, readBatchHeader, setBaseOffset, setPartitionLeaderEpoch, splitBatches, validateBatch, wholeBatchesLength } from './batch-view.js';
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import { walkRecords } from './record-walk.js';
import { decodeRecordBatch, decodeRecordSet, decodeRecordSetPrefix } from './decode-record-batch.js';
import { encodeRecordBatch, type RecordBatchInput } from './encode-record-batch.js';

const records = [
  { key: Buffer.from('k1'), value: Buffer.from('v1'), headers: [], timestamp: 1_700_000_000_000 },
  { key: null, value: Buffer.from('v2'), headers: [{ key: 'h', value: Buffer.from('x') }, { key: 'ü', value: null }], timestamp: 1_700_000_000_005 },
  { key: Buffer.from('k3'), value: null, headers: [], timestamp: 1_699_999_999_990 },
];

function batch(overrides: Partial<RecordBatchInput> = {}): Buffer {
  return encodeRecordBatch({ baseOffset: 100, compression: CompressionType.none, firstTimestamp: 1_700_000_000_000, records, ...overrides });
}

describe('CRC-32C', () => {
  it('matches the standard check value', () => {
    expect(crc32c('123456789') >>> 0).toBe(0xe3069283);
  });
});

describe('encodeRecordBatch / decodeRecordBatch', () => {
  it('round-trips records with headers, null keys and values, and negative timestamp deltas', () => {
    const buf = batch({ partitionLeaderEpoch: 4, producerId: 77, producerEpoch: 2, baseSequence: 9 });
    const decoded = decodeRecordBatch(buf);
    expect(decoded).toMatchObject({
      baseOffset: 100,
      partitionLeaderEpoch: 4,
      magic: 2,
      compression: 0,
      timestampType: 0,
      lastOffsetDelta: 2,
      lastOffset: 102,
      firstTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_005,
      producerId: 77,
      producerEpoch: 2,
      baseSequence: 9,
      recordCount: 3,
      sizeInBytes: buf.length,
    });
    expect(decoded.records).toEqual(records.map((r, i) => ({ offset: 100 + i, ...r })));
  });

  it.each([
    ['gzip', CompressionType.gzip],
    ['snappy', CompressionType.snappy],
    ['lz4', CompressionType.lz4],
    ['zstd', CompressionType.zstd],
  ] as const)('round-trips a %s batch, whose records section is compressed', (_name, compression) => {
    const big = { key: null, value: Buffer.alloc(5000, 'a'), headers: [], timestamp: 1_700_000_000_000 };
    const plain = batch({ records: [big, big] });
    const compressed = batch({ records: [big, big], compression });
    expect(compressed.length).toBeLessThan(plain.length / 10);
    expect(compressed.readInt16BE(BatchOffsets.attributes) & 0x07).toBe(compression);
    const decoded = decodeRecordBatch(compressed);
    expect(decoded.compression).toBe(compression);
    expect(decoded.records.map((r) => r.value)).toEqual([big.value, big.value]);
  });

  it('rejects an unknown compression type with UNSUPPORTED_COMPRESSION_TYPE', () => {
    const gz = batch({ compression: CompressionType.gzip });
    gz.writeInt16BE(5, BatchOffsets.attributes); // codec 5 does not exist (and the CRC is now stale)
    expect(() => decodeRecordBatch(gz, 0, { verifyCrc: false })).toThrow(expect.objectContaining({ code: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE }));
  });

  it('refuses a batch whose records inflate past maxDecompressedBytes with CORRUPT_MESSAGE', () => {
    const big = { key: null, value: Buffer.alloc(100_000, 'a'), headers: [], timestamp: 1_700_000_000_000 };
    for (const compression of [CompressionType.gzip, CompressionType.snappy, CompressionType.lz4, CompressionType.zstd]) {
      const buf = batch({ records: [big], compression });
      expect(decodeRecordBatch(buf, 0, { maxDecompressedBytes: 100_100 }).records).toHaveLength(1);
      expect(() => decodeRecordBatch(buf, 0, { maxDecompressedBytes: 50_000 })).toThrow(
        expect.objectContaining({ code: ErrorCode.CORRUPT_MESSAGE, message: expect.stringContaining('50000-byte decompression limit') }),
      );
    }
  });

  it('decodeRecordSetPrefix decodes up to the first batch that cannot be decoded and returns its error', () => {
    const big = { key: null, value: Buffer.alloc(100_000), headers: [], timestamp: 1_700_000_000_000 };
    const set = Buffer.concat([batch(), batch({ baseOffset: 103, records: [big], compression: CompressionType.lz4 }), batch({ baseOffset: 104 })]);
    const { batches, error } = decodeRecordSetPrefix(set, { maxDecompressedBytes: 50_000 });
    expect(batches.map((b) => b.baseOffset)).toEqual([100]);
    expect(error).toMatchObject({ code: ErrorCode.CORRUPT_MESSAGE, message: expect.stringContaining('base offset 103') });
    expect(decodeRecordSetPrefix(set).error).toBeNull();
  });

  it('gives every record the batch maxTimestamp under LogAppendTime', () => {
    const decoded = decodeRecordBatch(batch({ timestampType: 1 }));
    expect(decoded.records.map((r) => r.timestamp)).toEqual([1_700_000_000_005, 1_700_000_000_005, 1_700_000_000_005]);
  });

  it('decodes and re-encodes byte for byte the batch kafkajs produced in its Produce v3 fixture', () => {
    const body = loadFixture('produce-v3_request');
    // transactionalId(2) acks(2) timeout(4) topics(4) name(2+31) partitions(4) index(4) recordsSize(4)
    const start = 2 + 2 + 4 + 4 + 2 + 31 + 4 + 4 + 4;
    const size = body.readInt32BE(start - 4);
    const captured = body.subarray(start, start + size);
    const decoded = decodeRecordBatch(captured);
    expect(decoded.records.map((r) => [r.key?.toString(), r.value?.toString(), r.headers.map((h) => `${h.key}=${h.value}`)])).toEqual([
      ['key-9d0f348cb2e730e1edc4', 'some-value-a17b4c81f9ecd1e896e3', ['a=b', 'c=d', 'c=e']],
      ['key-c7073e965c34b4cc6442', 'some-value-65df422070d7ad73914f', ['a=b']],
      ['key-1693b184a9b52dbe03bc', 'some-value-3fcb65ffca087cba20ad', ['a=b']],
    ]);
    const again = encodeRecordBatch({
      baseOffset: decoded.baseOffset,
      partitionLeaderEpoch: decoded.partitionLeaderEpoch,
      compression: CompressionType.none,
      firstTimestamp: decoded.firstTimestamp,
      producerId: decoded.producerId,
      producerEpoch: decoded.producerEpoch,
      baseSequence: decoded.baseSequence,
      records: decoded.records.map(({ key, value, headers, timestamp }) => ({ key, value, headers, timestamp })),
    });
    expect(again.toString('hex')).toBe(Buffer.from(captured).toString('hex'));
  });

  it('decodes the gzip batch of kafkajs Fetch v4 gzip fixture', () => {
    const body = loadFixture('fetch-v4_response_gzip');
    const sets: Buffer[] = [];
    // throttle(4) topics(4) name partitions(4) partition(4) error(2) hw(8) lso(8) aborted(4) recordSetSize(4)
    let pos = 8;
    pos += 2 + body.readInt16BE(pos) + 4 + 4 + 2 + 8 + 8;
    const aborted = body.readInt32BE(pos);
    pos += 4 + Math.max(0, aborted) * 16;
    const size = body.readInt32BE(pos);
    sets.push(body.subarray(pos + 4, pos + 4 + size));
    const batches = decodeRecordSet(sets[0]!);
    expect(batches.length).toBeGreaterThan(0);
    expect(batches[0]!.compression).toBe(CompressionType.gzip);
    expect(batches.flatMap((b) => b.records).map((r) => r.key?.toString())).toContain('key-0');
  });
});

describe('shallow batch helpers', () => {
  it('validateBatch detects a flipped byte in the records with a clear error', () => {
    const buf = batch();
    buf[buf.length - 1]! ^= 0xff;
    expect(() => validateBatch(buf)).toThrow(CorruptDataError);
    expect(() => validateBatch(buf)).toThrow(/CRC-32C/);
  });

  it('setBaseOffset and setPartitionLeaderEpoch keep the CRC valid', () => {
    const buf = batch();
    setBaseOffset(buf, 0, 5_000_000_000);
    setPartitionLeaderEpoch(buf, 0, 12);
    const header = validateBatch(buf);
    expect(header.baseOffset).toBe(5_000_000_000);
    expect(header.partitionLeaderEpoch).toBe(12);
    expect(decodeRecordBatch(buf).records[2]!.offset).toBe(5_000_000_002);
  });

  it('rejects legacy magic 0/1 with UNSUPPORTED_FOR_MESSAGE_FORMAT and other magics as corrupt', () => {
    const buf = batch();
    buf[BatchOffsets.magic] = 1;
    expect(() => readBatchHeader(buf)).toThrow(expect.objectContaining({ code: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT }));
    buf[BatchOffsets.magic] = 7;
    expect(() => readBatchHeader(buf)).toThrow(CorruptDataError);
  });

  it('forEachBatch walks a record set and stops at a partial tail only when asked', () => {
    const a = batch({ baseOffset: 0 });
    const b = batch({ baseOffset: 3 });
    const set = Buffer.concat([a, b, b.subarray(0, 70)]);
    const seen: number[] = [];
    const covered = forEachBatch(set, (h) => void seen.push(h.baseOffset), { allowPartialTail: true, verifyCrc: true });
    expect(seen).toEqual([0, 3]);
    expect(covered).toBe(a.length + b.length);
    expect(() => forEachBatch(set, () => {})).toThrow(CorruptDataError);
    expect(forEachBatch(Buffer.concat([a, b.subarray(0, 20)]), () => {}, { allowPartialTail: true })).toBe(a.length);
    expect(forEachBatch(set, () => false)).toBe(a.length);
  });

  it('errors from malformed batches are always GregorErrors', () => {
    const good = batch();
    for (let cut = 0; cut < good.length; cut += 7) {
      try {
        decodeRecordBatch(good.subarray(0, cut));
      } catch (err) {
        expect(err).toBeInstanceOf(GregorError);
      }
    }
  });
});

describe('one batch view: storage split, whole-batch prefix, shared record walk', () => {
  it('splitBatches gives positions and sizes, refuses a torn tail unless asked, and names the batch at fault', () => {
    const a = batch();
    const b = batch({ baseOffset: 103 });
    const headers = splitBatches(Buffer.concat([a, b]));
    expect(headers.map((h) => [h.position, h.sizeInBytes, h.baseOffset, h.lastOffset])).toEqual([
      [0, a.length, 100, 102],
      [a.length, b.length, 103, 105],
    ]);
    const torn = Buffer.concat([a, b.subarray(0, 70)]);
    expect(() => splitBatches(torn)).toThrow(CorruptDataError);
    expect(splitBatches(torn, { allowPartialTail: true }).map((h) => h.baseOffset)).toEqual([100]);
    expect(splitBatches(Buffer.concat([a, b.subarray(0, 20)]), { allowPartialTail: true })).toHaveLength(1);
    const flipped = Buffer.concat([a, b]);
    flipped[flipped.length - 1]! ^= 0xff;
    expect(() => splitBatches(flipped, { allowPartialTail: true })).toThrow(/batch 1 at byte \d+: .*CRC-32C/);
    const legacy = Buffer.from(a);
    legacy.writeInt8(1, BatchOffsets.magic);
    // Storage keeps v2 only: any other magic is corruption there.
    expect(() => splitBatches(legacy)).toThrow(expect.objectContaining({ code: ErrorCode.CORRUPT_MESSAGE }));
  });

  it('wholeBatchesLength stops before a partial batch and before the first batch at or past maxOffset', () => {
    const a = batch();
    const b = batch({ baseOffset: 103 });
    const set = Buffer.concat([a, b, a.subarray(0, 30)]);
    expect(wholeBatchesLength(set)).toBe(a.length + b.length);
    expect(wholeBatchesLength(set, 105)).toBe(a.length);
    expect(wholeBatchesLength(set, 100)).toBe(0);
  });

  it('the decoder reads varlongs as Reader does, past 2^53 too (both walk the same record rules)', () => {
    for (const delta of [0, -1, 5, -300, 2 ** 40 + 3, -(2 ** 48) - 7, 2 ** 55 + 1, -(2 ** 62)]) {
      const w = new Writer();
      w.varlong(delta);
      const body = w.toBuffer();
      const reader = new Reader(body).varlong();
      const rec = Buffer.concat([Buffer.from([0]), body, Buffer.from([0, 1, 1, 0])]);
      const framed = Buffer.concat([zigzag(rec.length), rec]);
      let walked = NaN;
      walkRecords(framed, 0, framed.length, 1, (r) => (walked = r.timestampDelta));
      expect(walked).toBe(reader);
    }
  });
});

function zigzag(n: number): Buffer {
  const w = new Writer();
  w.varint(n);
  return w.toBuffer();
}
