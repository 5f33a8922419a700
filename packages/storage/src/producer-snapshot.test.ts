import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { CorruptDataError } from '@gregor/common';
import { ProducerStateEntry } from './producer-state.js';
import { decodeSnapshot, encodeSnapshot, listSnapshotOffsets, readSnapshotFile, snapshotFileName, writeSnapshotFile } from './producer-snapshot.js';
import { tempDir } from './test-batches.js';

let dir: { path: string; cleanup(): void };
beforeEach(() => {
  dir = tempDir('gregor-snapshot-');
});
afterEach(() => dir.cleanup());

function entry(): ProducerStateEntry {
  const e = new ProducerStateEntry(1000, { producerEpoch: 2, coordinatorEpoch: -1 });
  e.addBatch(2, 9, 40, 4, 1_700_000_000_000); // seq 5..9 at offsets 36..40
  e.addBatch(2, 14, 52, 4, 1_700_000_000_500); // seq 10..14 at offsets 48..52: the last batch
  return e;
}

describe('producer state snapshot (.snapshot, Kafka ProducerStateManager format)', () => {
  it('lays out version, CRC-32C of bytes 6.., count and 46-byte entries; only the last batch is stored', () => {
    const bytes = encodeSnapshot([entry(), new ProducerStateEntry(7, { producerEpoch: 0, lastTimestamp: 5 })]);
    const expected = Buffer.concat([
      Buffer.from([0x00, 0x01]), // version 1
      Buffer.alloc(4), // crc, filled below
      Buffer.from([0, 0, 0, 2]), // 2 entries
      // producer 1000, epoch 2, last seq 14, last offset 52, offset delta 4, timestamp, coordinator epoch -1, txn first offset -1
      Buffer.from('00000000000003e8' + '0002' + '0000000e' + '0000000000000034' + '00000004' + '0000018bcfe569f4' + 'ffffffff' + 'ffffffffffffffff', 'hex'),
      // producer 7 with no batch: last seq -1, last offset -1, offset delta 0
      Buffer.from('0000000000000007' + '0000' + 'ffffffff' + 'ffffffffffffffff' + '00000000' + '0000000000000005' + 'ffffffff' + 'ffffffffffffffff', 'hex'),
    ]);
    expect(crc32c(Buffer.from('123456789')) >>> 0).toBe(0xe3069283); // CRC-32C (Castagnoli), not zlib's CRC-32
    expected.writeUInt32BE(crc32c(expected.subarray(6)) >>> 0, 2);
    expect(bytes.toString('hex')).toBe(expected.toString('hex'));
    expect(bytes.length).toBe(10 + 2 * 46);
    expect(Number(bytes.readBigInt64BE(10 + 26))).toBe(1_700_000_000_500);
  });

  it('reads back one cached batch per producer (none when last_offset < 0)', () => {
    const [a, b] = decodeSnapshot(encodeSnapshot([entry(), new ProducerStateEntry(7, { producerEpoch: 0, lastTimestamp: 5 })]));
    expect(a!.producerId).toBe(1000);
    expect(a!.producerEpoch).toBe(2);
    expect(a!.batches).toEqual([{ lastSeq: 14, lastOffset: 52, offsetDelta: 4, timestamp: 1_700_000_000_500 }]);
    expect(a!.findDuplicateBatch(2, 10, 14)).toBeDefined();
    expect(a!.findDuplicateBatch(2, 5, 9)).toBeUndefined();
    expect(b!.batches).toEqual([]);
    expect(b!.lastTimestamp).toBe(5);
  });

  it('rejects a wrong version, a CRC mismatch and a bad length', () => {
    const good = encodeSnapshot([entry()]);
    const badVersion = Buffer.from(good);
    badVersion.writeInt16BE(2, 0);
    expect(() => decodeSnapshot(badVersion)).toThrow(/unknown version 2/);
    const flipped = Buffer.from(good);
    flipped[20]! ^= 0x10;
    expect(() => decodeSnapshot(flipped)).toThrow(/CRC mismatch/);
    expect(() => decodeSnapshot(good.subarray(0, good.length - 1))).toThrow(CorruptDataError);
    expect(() => decodeSnapshot(Buffer.alloc(3))).toThrow(/too short/);
  });

  it('files are <20-digit offset>.snapshot, written whole', () => {
    writeSnapshotFile(dir.path, 52, [entry()]);
    writeSnapshotFile(dir.path, 7, [], true);
    expect(readdirSync(dir.path).sort()).toEqual(['00000000000000000007.snapshot', '00000000000000000052.snapshot']);
    expect(snapshotFileName(52)).toBe('00000000000000000052.snapshot');
    expect(listSnapshotOffsets(dir.path)).toEqual([7, 52]);
    expect(readFileSync(join(dir.path, snapshotFileName(52)))).toEqual(encodeSnapshot([entry()]));
    expect(readSnapshotFile(dir.path, 7)).toEqual([]);
    writeFileSync(join(dir.path, snapshotFileName(7)), Buffer.from([0, 1, 0, 0]));
    expect(() => readSnapshotFile(dir.path, 7)).toThrow(CorruptDataError);
  });
});
