import { CorruptDataError } from '@gregor/common';
import { CompressionType, encodeRecordBatch } from '@gregor/protocol';
import { describe, expect, it } from 'vitest';
import { ConsumedChunk, nextFetchOffset } from './consumed-chunk.js';

const batch = (baseOffset: number, n: number) =>
  encodeRecordBatch({
    baseOffset,
    compression: CompressionType.gzip,
    firstTimestamp: 1_700_000_000_000,
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${baseOffset + i}`), headers: [], timestamp: 1_700_000_000_000 })),
  });

function offsets(chunk: ConsumedChunk): number[] {
  const out: number[] = [];
  for (let r = chunk.next(); r !== undefined; r = chunk.next()) out.push(r.offset);
  return out;
}

describe('ConsumedChunk', () => {
  it('hands out the records from the fetch offset up to the end offset, with topic and partition', () => {
    const set = Buffer.concat([batch(0, 4), batch(4, 4)]);
    const chunk = new ConsumedChunk('t', 3, set, 2, 6, 1 << 20);
    const first = chunk.next()!;
    expect([first.topic, first.partition, first.offset, first.value?.toString()]).toEqual(['t', 3, 2, 'v2']);
    expect(offsets(chunk)).toEqual([3, 4, 5]);
    expect(chunk.next()).toBeUndefined();
  });

  it('throws a CorruptDataError naming the partition at a corrupt batch, after the records before it', () => {
    const bad = batch(4, 2);
    bad[bad.length - 1] ^= 0xff;
    const chunk = new ConsumedChunk('t', 1, Buffer.concat([batch(0, 4), bad]), 0, Number.MAX_SAFE_INTEGER, 1 << 20);
    expect([0, 1, 2, 3].map(() => chunk.next()?.offset)).toEqual([0, 1, 2, 3]);
    expect(() => chunk.next()).toThrow(CorruptDataError);
    expect(() => new ConsumedChunk('t', 1, bad, 4, 10, 1 << 20).next()).toThrow(/fetch t-1 at offset 4/);
  });

  it('finds the next fetch offset from the batch headers alone, ignoring a partial last batch', () => {
    const last = batch(8, 3);
    expect(nextFetchOffset(Buffer.concat([batch(0, 4), batch(4, 4), last.subarray(0, 20)]), 0)).toEqual({ nextOffset: 8, error: null });
    expect(nextFetchOffset(Buffer.alloc(0), 5)).toEqual({ nextOffset: 5, error: null });
  });
});
