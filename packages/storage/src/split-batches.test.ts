import { describe, expect, it } from 'vitest';
import { crc32c } from '@node-rs/crc32';
import { CorruptDataError } from '@gregor/common';
import { BatchOffsets, splitBatches } from '@gregor/protocol';
import { makeBatch, simpleBatch } from './test-batches.js';

describe('batch scanning', () => {
  it('uses CRC-32C (check value)', () => {
    expect(crc32c('123456789') >>> 0).toBe(0xe3069283);
  });

  it('splits whole batches and reads their headers', () => {
    const a = makeBatch({ records: [{ value: Buffer.from('x') }, { value: Buffer.from('y'), timestampDelta: 5 }], firstTimestamp: 1000 });
    const b = simpleBatch(3);
    const headers = splitBatches(Buffer.concat([a, b]));
    expect(headers).toHaveLength(2);
    expect(headers[0]).toMatchObject({ position: 0, sizeInBytes: a.length, lastOffsetDelta: 1, recordCount: 2, firstTimestamp: 1000, maxTimestamp: 1005, magic: 2 });
    expect(headers[1]).toMatchObject({ position: a.length, sizeInBytes: b.length, recordCount: 3 });
  });

  it('rejects a bad CRC, a wrong magic and a torn tail', () => {
    const batch = simpleBatch(2);
    const badCrc = Buffer.from(batch);
    badCrc[batch.length - 1]! ^= 0xff;
    expect(() => splitBatches(badCrc)).toThrow(/CRC/);
    const badMagic = Buffer.from(batch);
    badMagic.writeInt8(1, BatchOffsets.magic);
    expect(() => splitBatches(badMagic)).toThrow(/magic/);
    expect(() => splitBatches(Buffer.concat([batch, batch.subarray(0, 30)]))).toThrow(CorruptDataError);
    expect(() => splitBatches(batch.subarray(0, batch.length - 1))).toThrow(CorruptDataError);
  });

  it('ignores offset and leader epoch, which are outside the CRC', () => {
    const batch = simpleBatch(1);
    batch.writeBigInt64BE(99n, BatchOffsets.baseOffset);
    batch.writeInt32BE(7, BatchOffsets.partitionLeaderEpoch);
    expect(splitBatches(batch)[0]).toMatchObject({ baseOffset: 99, lastOffset: 99, partitionLeaderEpoch: 7 });
  });
});
