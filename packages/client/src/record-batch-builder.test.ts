import { describe, expect, it } from 'vitest';
import { CompressionType, decodeRecordBatch, encodeRecordBatch, validateBatch, type RecordInput } from '@gregor/protocol';
import { RecordBatchBuilder } from './record-batch-builder.js';

const t0 = 1_700_000_000_000;
const records: RecordInput[] = [
  { key: null, value: Buffer.from('a'), headers: [], timestamp: t0 },
  { key: Buffer.from('k'), value: null, headers: [{ key: 'h', value: Buffer.from('v') }, { key: 'ü', value: null }], timestamp: t0 - 5 },
  { key: Buffer.alloc(0), value: Buffer.alloc(70_000, 7), headers: [], timestamp: t0 + 2 ** 40 }, // past int32 and the initial capacity
  { key: null, value: Buffer.from('z'), headers: [], timestamp: t0 - 2 ** 33 },
];
const plain = { compression: CompressionType.none, producerId: -1, producerEpoch: -1, baseSequence: -1 } as const;

function built(): RecordBatchBuilder {
  const b = new RecordBatchBuilder(records[0]!.timestamp, 64);
  for (const r of records) b.append(r.key, r.value, r.headers, r.timestamp);
  return b;
}

describe('RecordBatchBuilder', () => {
  it('writes the same bytes as encodeRecordBatch, records appended one at a time', () => {
    const expected = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: t0, records });
    expect(built().build(plain).equals(expected)).toBe(true);
  });

  it('fills in producer id, epoch and base sequence with a valid CRC, and rebuilds in a copy when they change', () => {
    const b = built();
    const first = b.build({ ...plain, producerId: 7, producerEpoch: 1, baseSequence: 10 });
    expect(b.build({ ...plain, producerId: 7, producerEpoch: 1, baseSequence: 10 })).toBe(first);
    const copy = Buffer.from(first);
    const second = b.build({ ...plain, producerId: 9, producerEpoch: 0, baseSequence: 0 });
    expect(first.equals(copy)).toBe(true); // the first batch handed out is left as it was
    expect(validateBatch(second)).toMatchObject({ producerId: 9, producerEpoch: 0, baseSequence: 0, recordCount: 4 });
    const decoded = decodeRecordBatch(first);
    expect(decoded).toMatchObject({ producerId: 7, producerEpoch: 1, baseSequence: 10, lastOffsetDelta: 3, maxTimestamp: t0 + 2 ** 40 });
    expect(decoded.records.map((r) => [r.offset, r.timestamp, r.key?.toString(), r.value?.length, r.headers.length])).toEqual(
      records.map((r, i) => [i, r.timestamp, r.key?.toString(), r.value?.length, r.headers.length]),
    );
    expect(decoded.records[1]!.headers).toEqual([{ key: 'h', value: Buffer.from('v') }, { key: 'ü', value: null }]);
  });

  it('compresses the records once per build', () => {
    const batch = built().build({ ...plain, compression: CompressionType.gzip });
    const decoded = decodeRecordBatch(batch);
    expect(decoded.compression).toBe(CompressionType.gzip);
    expect(decoded.records.map((r) => r.value?.length ?? -1)).toEqual([1, -1, 70_000, 1]);
  });

  it('takes no records once built', () => {
    const b = built();
    b.build(plain);
    expect(() => b.append(null, null, [], t0)).toThrow(/built/);
  });
});
