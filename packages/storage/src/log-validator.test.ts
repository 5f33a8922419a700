import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { BatchOffsets, CompressionType, computeBatchCrc, encodeRecordBatch, splitBatches, type CompressionCodec, type RecordInput } from '@gregor/protocol';
import { RecordValidationError, validateProducerBatch, type RecordValidationConfig } from './log-validator.js';

const NOW = 1_700_000_000_000;
const CONFIG: RecordValidationConfig = { timestampType: 'CreateTime', timestampDifferenceMaxMs: Number.MAX_SAFE_INTEGER, compacted: false, maxDecompressedBytes: 1 << 20 };

function records(n: number, key: (i: number) => Buffer | null = (i) => Buffer.from(`k${i}`)): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({ key: key(i), value: Buffer.from(`value-${i}`), headers: [{ key: 'h', value: Buffer.from('x') }], timestamp: NOW + i }));
}

function batch(recs: RecordInput[], compression: CompressionCodec = CompressionType.none, extra: Partial<Parameters<typeof encodeRecordBatch>[0]> = {}): Buffer {
  return encodeRecordBatch({ baseOffset: 0, compression, firstTimestamp: NOW, records: recs, ...extra });
}

/** Rewrites header fields inside the CRC and recomputes it, as a forging client would. */
function forge(buf: Buffer, edit: (b: Buffer) => void): Buffer {
  const out = Buffer.from(buf);
  edit(out);
  out.writeUInt32BE(computeBatchCrc(out, 0, out.length), BatchOffsets.crc);
  return out;
}

function validate(buf: Buffer, config: Partial<RecordValidationConfig> = {}) {
  const [header] = splitBatches(buf);
  return validateProducerBatch(buf, header!, 0, NOW, { ...CONFIG, ...config });
}

function refusal(fn: () => unknown): RecordValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof RecordValidationError) return err;
    throw err;
  }
  throw new Error('expected a RecordValidationError');
}

describe('validateProducerBatch (Kafka LogValidator checks on the leader)', () => {
  it('accepts well-formed batches of every codec and reports the records\' true max timestamp', () => {
    for (const codec of [CompressionType.none, CompressionType.gzip, CompressionType.snappy, CompressionType.lz4, CompressionType.zstd] as CompressionCodec[]) {
      expect(validate(batch(records(50), codec)).maxTimestamp).toBe(NOW + 49);
    }
  });

  it('refuses a header claiming 2^31-1 records over a batch that holds 3 (INVALID_RECORD, no record errors)', () => {
    const forged = forge(batch(records(3)), (b) => {
      b.writeInt32BE(2 ** 31 - 2, BatchOffsets.lastOffsetDelta);
      b.writeInt32BE(2 ** 31 - 1, BatchOffsets.recordCount);
    });
    const err = refusal(() => validate(forged));
    expect(err.code).toBe(ErrorCode.INVALID_RECORD);
    expect(err.message).toMatch(/declares 2147483647 records but holds only 3/);
    expect(err.recordErrors).toEqual([]);
  });

  it('refuses fewer records claimed than held, and the same inside a compressed batch', () => {
    for (const codec of [CompressionType.none, CompressionType.gzip] as CompressionCodec[]) {
      const forged = forge(batch(records(5), codec), (b) => {
        b.writeInt32BE(3, BatchOffsets.lastOffsetDelta);
        b.writeInt32BE(4, BatchOffsets.recordCount);
      });
      expect(refusal(() => validate(forged)).message).toMatch(/bytes after its 4 records/);
    }
  });

  it('refuses a record whose length or varints run past the batch', () => {
    const good = batch(records(2));
    const forged = forge(good, (b) => {
      b[BatchOffsets.records] = 0x7e; // the first record's length varint: zigzag 0x7e = 63, more than its fields take
    });
    const err = refusal(() => validate(forged));
    expect(err.code).toBe(ErrorCode.INVALID_RECORD);
    expect(err.message).toMatch(/record 0: length 63 exceeds/);
    const unending = forge(good, (b) => b.fill(0xff, BatchOffsets.records + 1, BatchOffsets.records + 12));
    expect(refusal(() => validate(unending)).message).toMatch(/varlong longer than 10 bytes|varint longer/);
  });

  it('refuses offset deltas that are not 0,1,2,... and names the record (KIP-467)', () => {
    const recs = records(4).map((r, i) => ({ ...r, offsetDelta: i === 2 ? 7 : i }));
    for (const codec of [CompressionType.none, CompressionType.zstd] as CompressionCodec[]) {
      const err = refusal(() => validate(batch(recs, codec, { lastOffsetDelta: 3 })));
      expect(err.code).toBe(ErrorCode.INVALID_RECORD);
      expect(err.recordErrors.map((e) => e.batchIndex)).toEqual([2]);
    }
  });

  it('refuses keyless records on a compacted topic only', () => {
    const recs = records(3, (i) => (i === 1 ? null : Buffer.from('k')));
    expect(validate(batch(recs)).maxTimestamp).toBe(NOW + 2);
    const err = refusal(() => validate(batch(recs), { compacted: true }));
    expect(err.code).toBe(ErrorCode.INVALID_RECORD);
    expect(err.recordErrors).toEqual([{ batchIndex: 1, message: expect.stringMatching(/Compacted topic cannot accept message without key/) }]);
  });

  it('refuses CreateTime timestamps beyond message.timestamp.difference.max.ms, not under LogAppendTime', () => {
    const recs = records(3).map((r, i) => ({ ...r, timestamp: i === 2 ? NOW - 3_600_000 : NOW }));
    const err = refusal(() => validate(batch(recs), { timestampDifferenceMaxMs: 60_000 }));
    expect(err.code).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(err.recordErrors[0]!.batchIndex).toBe(2);
    expect(() => validate(batch(recs), { timestampDifferenceMaxMs: 60_000, timestampType: 'LogAppendTime' })).not.toThrow();
  });

  it('refuses the LogAppendTime bit and control batches from producers', () => {
    expect(refusal(() => validate(batch(records(1), CompressionType.none, { timestampType: 1 }))).code).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(refusal(() => validate(batch(records(1), CompressionType.none, { isControl: true }))).code).toBe(ErrorCode.INVALID_RECORD);
  });

  it('refuses a gzip bomb once it inflates past the cap, as CORRUPT_MESSAGE', () => {
    const bomb = batch(records(1));
    const inflated = Buffer.alloc(4 << 20); // 4 MiB of zeros: 4 KiB compressed
    const payload = gzipSync(inflated);
    const header = bomb.subarray(0, BatchOffsets.records);
    const forged = forge(Buffer.concat([header, payload]), (b) => {
      b.writeInt32BE(b.length - 12, BatchOffsets.batchLength);
      b.writeInt16BE(CompressionType.gzip, BatchOffsets.attributes);
    });
    const err = refusal(() => validate(forged));
    expect(err.code).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(err.message).toMatch(/gzip records cannot be decompressed/);
  });
});
