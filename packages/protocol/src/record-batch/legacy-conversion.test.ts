import { describe, expect, it } from 'vitest';
import { CorruptDataError, ErrorCode } from '@gregor/common';
import { forEachBatch } from './batch-view.js';
import { decodeRecordBatch, decodeRecordSet } from './decode-record-batch.js';
import { downConvertRecordSet } from './down-convert.js';
import { encodeRecordBatch } from './encode-record-batch.js';
import { compressionCodec } from './compression.js';
import { computeLegacyCrc, legacyEntrySize, readLegacyEntry, writeLegacyEntry } from './legacy-record.js';
import { decodeMessageSet, encodeMessageSet, forEachLegacyEntry } from './message-set.js';
import { upConvertMessageSet } from './up-convert.js';

const TS = 1_700_000_000_000;
const LEGACY_CODECS = [0, 1, 2, 3] as const;
const MAX = 1_000_000;

const legacyRecords = (n: number, base = 0) =>
  Array.from({ length: n }, (_, i) => ({ offset: base + i, timestamp: TS + i, key: i % 4 === 0 ? null : Buffer.from(`k${i}`), value: i % 9 === 5 ? null : Buffer.from(`value-${i}-${'y'.repeat(i % 50)}`) }));

const v2Records = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${from + i}`), value: Buffer.from(`v${from + i}-${'z'.repeat((from + i) % 30)}`), headers: [{ key: 'h', value: Buffer.from('x') }], timestamp: TS + from + i }));

/** A v2 batch at `baseOffset` holding `n` records. */
const batch = (baseOffset: number, n: number, compression: 0 | 1 | 2 | 3 | 4 = 0, extra: { timestampType?: number; isControl?: boolean } = {}) =>
  encodeRecordBatch({ baseOffset, compression, firstTimestamp: TS + baseOffset, records: v2Records(n, baseOffset), ...extra });

describe('up-conversion of a producer message set (Produce v0-v2) to RecordBatch v2', () => {
  it.each([0, 1] as const)('v%i: every legacy codec becomes one batch with the same codec; v0 timestamps are -1, v1 kept', (magic) => {
    for (const compression of LEGACY_CODECS) {
      const input = legacyRecords(120);
      const up = upConvertMessageSet(encodeMessageSet({ magic, compression, records: input }), { maxMessageBytes: MAX });
      expect(up).toMatchObject({ records: 120, compression });
      const b = decodeRecordBatch(up.batch);
      expect(b).toMatchObject({ magic: 2, compression, baseOffset: 0, recordCount: 120, lastOffsetDelta: 119, producerId: -1, baseSequence: -1 });
      expect(b.records.map((r) => [r.offset, r.key, r.value])).toEqual(input.map((r, i) => [i, r.key, r.value]));
      expect(b.records.map((r) => r.timestamp)).toEqual(input.map((r) => (magic === 0 ? -1 : r.timestamp)));
      expect(b.records.every((r) => r.headers.length === 0)).toBe(true);
    }
  });

  it('ignores the offsets the producer wrote (the broker assigns them)', () => {
    const up = upConvertMessageSet(encodeMessageSet({ magic: 0, compression: 0, records: legacyRecords(3, 5000) }), { maxMessageBytes: MAX });
    expect(decodeRecordBatch(up.batch).records.map((r) => r.offset)).toEqual([0, 1, 2]);
  });

  it('drops an incomplete last entry and answers an empty set with no batch', () => {
    const set = encodeMessageSet({ magic: 1, compression: 0, records: legacyRecords(3) });
    expect(upConvertMessageSet(set.subarray(0, set.length - 3), { maxMessageBytes: MAX }).records).toBe(2);
    expect(upConvertMessageSet(Buffer.alloc(0), { maxMessageBytes: MAX })).toMatchObject({ records: 0, batch: Buffer.alloc(0) });
    expect(upConvertMessageSet(set.subarray(0, 20), { maxMessageBytes: MAX }).records).toBe(0);
  });

  it('refuses what Kafka refuses, with its error codes', () => {
    const code = (set: Buffer, maxMessageBytes = MAX): number | undefined => {
      try {
        upConvertMessageSet(set, { maxMessageBytes });
        return undefined;
      } catch (err) {
        return (err as { code?: number }).code;
      }
    };
    const plain = encodeMessageSet({ magic: 1, compression: 0, records: legacyRecords(3) });
    const gzip = encodeMessageSet({ magic: 1, compression: 1, records: legacyRecords(3) });
    // A top-level entry above max.message.bytes.
    expect(code(plain, readLegacyEntry(plain, 0).sizeInBytes - 1)).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    // A CRC-32 mismatch.
    const bad = Buffer.from(plain);
    bad[bad.length - 1] ^= 0xff;
    expect(code(bad)).toBe(ErrorCode.CORRUPT_MESSAGE);
    // Magic 0 and magic 1 messages in one set.
    expect(code(Buffer.concat([encodeMessageSet({ magic: 0, compression: 0, records: legacyRecords(1) }), plain]))).toBe(ErrorCode.INVALID_RECORD);
    // A wrapper next to another message, or two wrappers.
    expect(code(Buffer.concat([plain, gzip]))).toBe(ErrorCode.INVALID_RECORD);
    expect(code(Buffer.concat([gzip, gzip]))).toBe(ErrorCode.INVALID_RECORD);
    // A producer may not claim LogAppendTime.
    expect(code(encodeMessageSet({ magic: 1, compression: 0, timestampType: 1, logAppendTime: TS, records: legacyRecords(2) }))).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(code(encodeMessageSet({ magic: 1, compression: 2, timestampType: 1, logAppendTime: TS, records: legacyRecords(2) }))).toBe(ErrorCode.INVALID_TIMESTAMP);
    // v1 inner offsets must be 0, 1, 2...: a wrapper written with absolute ones (base 10) is refused.
    const absolute = encodeMessageSet({ magic: 0, compression: 1, records: legacyRecords(2, 10) });
    expect(upConvertMessageSet(absolute, { maxMessageBytes: MAX }).records).toBe(2); // fine in v0
    expect(code(rewrap(1, 1, encodeMessageSet({ magic: 1, compression: 0, records: legacyRecords(2, 10) })))).toBe(ErrorCode.INVALID_RECORD);
    // Inner messages of another magic than their wrapper.
    expect(code(rewrap(1, 1, encodeMessageSet({ magic: 0, compression: 0, records: legacyRecords(2) })))).toBe(ErrorCode.INVALID_RECORD);
    // A zstd wrapper: not a v0/v1 codec.
    const zstd = Buffer.from(gzip);
    zstd[17] = 4;
    zstd.writeUInt32BE(computeLegacyCrc(zstd, 0, zstd.length), 12);
    expect(code(zstd)).toBe(ErrorCode.INVALID_RECORD);
    // A size below the v0 minimum.
    const tiny = Buffer.from(plain);
    tiny.writeInt32BE(10, 8);
    expect(code(tiny)).toBe(ErrorCode.CORRUPT_MESSAGE);
  });
});

/** A wrapper of `magic` compressed with `codec` around an arbitrary inner message set. */
function rewrap(magic: 0 | 1, codec: number, inner: Buffer): Buffer {
  const value = compressionCodec(codec).compress(inner, { magic });
  const out = Buffer.alloc(legacyEntrySize(magic, null, value));
  writeLegacyEntry(out, 0, { offset: 1, magic, attributes: codec, timestamp: TS, key: null, value });
  return out;
}

describe('down-conversion of stored RecordBatch v2 for Fetch v0-v3', () => {
  it.each([0, 1] as const)('to magic %i keeps offsets, keys and values for every codec but zstd', (magic) => {
    for (const codec of LEGACY_CODECS) {
      const stored = Buffer.concat([batch(0, 30, codec), batch(30, 1, codec), batch(31, 50, codec)]);
      const out = downConvertRecordSet(stored, magic, 0);
      const got = decodeMessageSet(out);
      const want = decodeRecordSet(stored).flatMap((b) => b.records);
      expect(got.map((r) => [r.offset, r.key, r.value])).toEqual(want.map((r) => [r.offset, r.key, r.value]));
      expect(got.every((r) => r.magic === magic && r.compression === codec)).toBe(true);
      expect(got.map((r) => r.timestamp)).toEqual(want.map((r) => (magic === 0 ? -1 : r.timestamp)));
      let entries = 0;
      forEachLegacyEntry(out, () => void entries++);
      expect(entries).toBe(codec === 0 ? 81 : 3);
    }
  });

  it('drops the records of an uncompressed batch below the fetch offset, keeps a compressed batch whole', () => {
    const plain = decodeMessageSet(downConvertRecordSet(batch(100, 10), 1, 104));
    expect(plain.map((r) => r.offset)).toEqual([104, 105, 106, 107, 108, 109]);
    const gz = decodeMessageSet(downConvertRecordSet(batch(100, 10, 1), 1, 104));
    expect(gz.map((r) => r.offset)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
  });

  it('keeps the offsets of a compacted compressed batch with gaps (v1 relative inner offsets)', () => {
    const records = v2Records(5).map((r, i) => ({ ...r, offsetDelta: i * 3 }));
    const stored = encodeRecordBatch({ baseOffset: 50, compression: 2, firstTimestamp: TS, lastOffsetDelta: 14, records });
    for (const magic of [0, 1] as const) expect(decodeMessageSet(downConvertRecordSet(stored, magic, 0)).map((r) => r.offset)).toEqual([50, 53, 56, 59, 62]);
  });

  it('drops control batches and keeps LogAppendTime (v1: the batch max timestamp on every message)', () => {
    const control = encodeRecordBatch({ baseOffset: 5, compression: 0, firstTimestamp: TS, isControl: true, records: [{ key: Buffer.alloc(4), value: Buffer.alloc(6), headers: [], timestamp: TS }] });
    const stamped = encodeRecordBatch({ baseOffset: 6, compression: 1, timestampType: 1, firstTimestamp: TS, records: v2Records(3, 6).map((r) => ({ ...r, timestamp: TS + 999 })) });
    const out = downConvertRecordSet(Buffer.concat([batch(0, 5), control, stamped]), 1, 0);
    const got = decodeMessageSet(out);
    expect(got.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 6, 7, 8]);
    expect(got.slice(5).every((r) => r.timestampType === 1 && r.timestamp === TS + 999)).toBe(true);
    expect(got.slice(0, 5).every((r) => r.timestampType === 0)).toBe(true);
  });

  it('zstd: UNSUPPORTED_COMPRESSION_TYPE when it comes first, otherwise the set ends before it', () => {
    expect(() => downConvertRecordSet(batch(0, 3, 4), 1, 0)).toThrow(expect.objectContaining({ code: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE }));
    const got = decodeMessageSet(downConvertRecordSet(Buffer.concat([batch(0, 3, 1), batch(3, 3, 4), batch(6, 3)]), 0, 0));
    expect(got.map((r) => r.offset)).toEqual([0, 1, 2]);
  });

  it('skips an incomplete last batch (a byte-bounded read) and refuses a corrupt one', () => {
    const stored = Buffer.concat([batch(0, 3), batch(3, 3)]);
    expect(decodeMessageSet(downConvertRecordSet(stored.subarray(0, stored.length - 5), 0, 0)).map((r) => r.offset)).toEqual([0, 1, 2]);
    const bad = Buffer.from(stored);
    bad[bad.length - 1] ^= 1;
    expect(() => downConvertRecordSet(bad, 0, 0)).toThrow(CorruptDataError);
  });

  it('up(down(x)) gives back the records of x, for both magics and every legacy codec', () => {
    for (const magic of [0, 1] as const) {
      for (const codec of LEGACY_CODECS) {
        const stored = batch(0, 40, codec);
        const up = upConvertMessageSet(downConvertRecordSet(stored, magic, 0), { maxMessageBytes: MAX });
        const before = decodeRecordBatch(stored).records;
        const after = decodeRecordBatch(up.batch).records;
        expect(after.map((r) => [r.offset, r.key, r.value])).toEqual(before.map((r) => [r.offset, r.key, r.value]));
        let batches = 0;
        forEachBatch(up.batch, () => void batches++);
        expect([batches, up.compression]).toEqual([1, codec]);
      }
    }
  });
});
