import { CorruptDataError } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { BatchOffsets, CompressionType, type CompressionCodec } from './batch-header.js';
import { decodeRecordSet, type RecordFactory } from './decode-record-batch.js';
import { encodeRecordBatch } from './encode-record-batch.js';
import type { DecodedRecord } from './record.js';
import { RecordSetCursor } from './record-set-cursor.js';

const make: RecordFactory<DecodedRecord> = (offset, timestamp, key, value, headers) => ({ offset, timestamp, key, value, headers });

function batch(baseOffset: number, n: number, extra: { compression?: CompressionCodec; isControl?: boolean; logAppendTime?: boolean } = {}): Buffer {
  const buf = encodeRecordBatch({
    baseOffset,
    compression: extra.compression ?? CompressionType.none,
    firstTimestamp: 1_700_000_000_000,
    isControl: extra.isControl,
    records: Array.from({ length: n }, (_, i) => ({
      key: i % 2 ? null : Buffer.from(`k${baseOffset + i}`),
      value: Buffer.from(`value-${baseOffset + i}`),
      headers: i === 1 ? [{ key: 'h', value: Buffer.from('x') }] : [],
      timestamp: 1_700_000_000_000 + i,
    })),
  });
  return buf;
}

function drain(cursor: RecordSetCursor<DecodedRecord>): DecodedRecord[] {
  const out: DecodedRecord[] = [];
  for (let r = cursor.next(); r !== undefined; r = cursor.next()) out.push(r);
  return out;
}

describe('RecordSetCursor', () => {
  it('hands out the same records as the eager decoder, across codecs, one at a time', () => {
    const set = Buffer.concat([batch(0, 3), batch(3, 5, { compression: CompressionType.gzip }), batch(8, 2, { compression: CompressionType.zstd }), batch(10, 4, { compression: CompressionType.lz4 })]);
    const eager = decodeRecordSet(set).flatMap((b) => b.records);
    const lazy = drain(new RecordSetCursor(set, {}, make));
    expect(lazy).toEqual(eager);
    expect(lazy.map((r) => r.offset)).toEqual(Array.from({ length: 14 }, (_, i) => i));
  });

  it('skips control batches and ends quietly at a partial last batch', () => {
    const full = batch(6, 2);
    const set = Buffer.concat([batch(0, 3), batch(3, 1, { isControl: true }), batch(4, 2), full.subarray(0, full.length - 5)]);
    expect(drain(new RecordSetCursor(set, {}, make)).map((r) => r.offset)).toEqual([0, 1, 2, 4, 5]);
    expect(drain(new RecordSetCursor(Buffer.alloc(0), {}, make))).toEqual([]);
  });

  it('throws a CorruptDataError at a corrupt batch once the records before it were handed out, then ends', () => {
    const second = batch(3, 2);
    second[second.length - 1] ^= 0xff; // breaks the CRC
    const cursor = new RecordSetCursor(Buffer.concat([batch(0, 3), second, batch(5, 1)]), {}, make);
    expect([cursor.next()?.offset, cursor.next()?.offset, cursor.next()?.offset]).toEqual([0, 1, 2]);
    expect(() => cursor.next()).toThrow(CorruptDataError);
    expect(cursor.next()).toBeUndefined();
  });

  it('refuses a batch inflating past the cap when it is reached', () => {
    const big = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.gzip, firstTimestamp: 0, records: [{ key: null, value: Buffer.alloc(100_000), headers: [], timestamp: 0 }] });
    const cursor = new RecordSetCursor(Buffer.concat([batch(0, 1), big]), { maxDecompressedBytes: 10_000 }, make);
    expect(cursor.next()?.offset).toBe(0);
    expect(() => cursor.next()).toThrow(/cannot be decompressed/);
  });

  it('uses the batch maxTimestamp for every record of a LogAppendTime batch', () => {
    const b = batch(0, 3);
    const attributes = b.readInt16BE(BatchOffsets.attributes);
    b.writeInt16BE(attributes | 0x08, BatchOffsets.attributes); // timestampType = LogAppendTime
    b.writeBigInt64BE(1_800_000_000_000n, BatchOffsets.maxTimestamp);
    const records = drain(new RecordSetCursor(b, { verifyCrc: false }, make));
    expect(records.map((r) => r.timestamp)).toEqual([1_800_000_000_000, 1_800_000_000_000, 1_800_000_000_000]);
  });
});
