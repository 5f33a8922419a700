import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { CorruptDataError } from '@gregor/common';
import { filenamePrefixFromOffset, offsetFromFileName } from './file-names.js';
import { ProducerStateEntry } from './producer-state.js';

/**
 * Kafka's producer-state snapshot, `<20-digit offset>.snapshot` in the partition directory, the offset being the
 * exclusive end of the log the state covers (ProducerStateManager.writeSnapshot, unchanged from 0.11 to 2.8):
 *
 *   0 version i16 = 1 | 2 crc u32 = CRC-32C of bytes 6..end | 6 count i32 | 10 entries, 46 bytes each:
 *   producer_id i64, producer_epoch i16, last_sequence i32, last_offset i64, offset_delta i32, timestamp i64,
 *   coordinator_epoch i32, current_txn_first_offset i64 (-1 = none)
 *
 * Only each producer's last batch is stored, so after a reload only a retry of that batch is recognised.
 */
export const SNAPSHOT_FILE_SUFFIX = '.snapshot';
export const SNAPSHOT_VERSION = 1;
const CRC_OFFSET = 2;
const ENTRIES_OFFSET = CRC_OFFSET + 4;
const ENTRY_SIZE = 46;

export function snapshotFileName(offset: number): string {
  return filenamePrefixFromOffset(offset) + SNAPSHOT_FILE_SUFFIX;
}

/** Offsets of the snapshot files in `dir`, ascending. */
export function listSnapshotOffsets(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(SNAPSHOT_FILE_SUFFIX)) continue;
    const offset = offsetFromFileName(name);
    if (offset !== null) out.push(offset);
  }
  return out.sort((a, b) => a - b);
}

export function encodeSnapshot(entries: Iterable<ProducerStateEntry>): Buffer {
  const list = [...entries];
  const buf = Buffer.alloc(ENTRIES_OFFSET + 4 + list.length * ENTRY_SIZE);
  buf.writeInt16BE(SNAPSHOT_VERSION, 0);
  buf.writeInt32BE(list.length, ENTRIES_OFFSET);
  let pos = ENTRIES_OFFSET + 4;
  for (const e of list) {
    buf.writeBigInt64BE(BigInt(e.producerId), pos);
    buf.writeInt16BE(e.producerEpoch, pos + 8);
    buf.writeInt32BE(e.lastSeq, pos + 10);
    buf.writeBigInt64BE(BigInt(e.lastDataOffset), pos + 14);
    buf.writeInt32BE(e.lastOffsetDelta, pos + 22);
    buf.writeBigInt64BE(BigInt(e.lastTimestamp), pos + 26);
    buf.writeInt32BE(e.coordinatorEpoch, pos + 34);
    buf.writeBigInt64BE(BigInt(e.currentTxnFirstOffset), pos + 38);
    pos += ENTRY_SIZE;
  }
  buf.writeUInt32BE(crc32c(buf.subarray(ENTRIES_OFFSET)) >>> 0, CRC_OFFSET);
  return buf;
}

/** Parses a snapshot; throws CorruptDataError on a wrong version, a CRC mismatch or a bad length. */
export function decodeSnapshot(buf: Buffer, what = 'producer snapshot'): ProducerStateEntry[] {
  if (buf.length < ENTRIES_OFFSET + 4) throw new CorruptDataError(`${what}: ${buf.length} bytes is too short`);
  const version = buf.readInt16BE(0);
  if (version !== SNAPSHOT_VERSION) throw new CorruptDataError(`${what}: unknown version ${version}`);
  const stored = buf.readUInt32BE(CRC_OFFSET);
  const computed = crc32c(buf.subarray(ENTRIES_OFFSET)) >>> 0;
  if (stored !== computed) throw new CorruptDataError(`${what}: CRC mismatch (stored ${stored.toString(16)}, computed ${computed.toString(16)})`);
  const count = buf.readInt32BE(ENTRIES_OFFSET);
  if (count < 0 || buf.length !== ENTRIES_OFFSET + 4 + count * ENTRY_SIZE) throw new CorruptDataError(`${what}: ${count} entries do not fill ${buf.length} bytes`);
  const entries: ProducerStateEntry[] = [];
  let pos = ENTRIES_OFFSET + 4;
  for (let i = 0; i < count; i++, pos += ENTRY_SIZE) {
    const lastOffset = Number(buf.readBigInt64BE(pos + 14));
    const timestamp = Number(buf.readBigInt64BE(pos + 26));
    const batches = lastOffset >= 0 ? [{ lastSeq: buf.readInt32BE(pos + 10), lastOffset, offsetDelta: buf.readInt32BE(pos + 22), timestamp }] : [];
    entries.push(
      new ProducerStateEntry(
        Number(buf.readBigInt64BE(pos)),
        {
          producerEpoch: buf.readInt16BE(pos + 8),
          lastTimestamp: timestamp,
          coordinatorEpoch: buf.readInt32BE(pos + 34),
          currentTxnFirstOffset: Number(buf.readBigInt64BE(pos + 38)),
        },
        batches,
      ),
    );
  }
  return entries;
}

/**
 * Writes `<offset>.snapshot` through a temp file (removed by log loading if a crash leaves it) and a rename.
 * `sync` fsyncs the file first (at log close, before the clean-shutdown marker). Snapshots at segment rolls are
 * not fsynced: one torn by an OS crash fails its length or CRC check and is deleted at load, and the state is
 * rebuilt from an older snapshot plus the log, so durability costs no fsync on the append path.
 */
export function writeSnapshotFile(dir: string, offset: number, entries: Iterable<ProducerStateEntry>, sync = false): void {
  const path = join(dir, snapshotFileName(offset));
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    const data = encodeSnapshot(entries);
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function readSnapshotFile(dir: string, offset: number): ProducerStateEntry[] {
  const path = join(dir, snapshotFileName(offset));
  return decodeSnapshot(readFileSync(path), path);
}

export function deleteSnapshotFile(dir: string, offset: number): void {
  rmSync(join(dir, snapshotFileName(offset)), { force: true });
}
