/** Test support (excluded from the build): real RecordBatch v2 bytes with a CRC-32C, and temp dirs. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { BatchOffsets, BATCH_HEADER_SIZE } from '@gregor/protocol';
import { silentLogger } from '@gregor/common';
import type { LogConfig } from './log-config.js';

export interface TestRecord {
  key?: Buffer | null;
  value: Buffer | null;
  timestampDelta?: number;
}

function varint(n: number): number[] {
  let z = (BigInt(n) << 1n) ^ (BigInt(n) >> 63n);
  z = BigInt.asUintN(64, z);
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return out;
}

function encodeRecord(r: TestRecord, offsetDelta: number): Buffer {
  const parts: Buffer[] = [Buffer.from([0, ...varint(r.timestampDelta ?? 0), ...varint(offsetDelta)])];
  for (const field of [r.key ?? null, r.value]) {
    if (field === null) parts.push(Buffer.from(varint(-1)));
    else parts.push(Buffer.from(varint(field.length)), field);
  }
  parts.push(Buffer.from(varint(0)));
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(varint(body.length)), body]);
}

/** One uncompressed v2 batch as a producer would send it (baseOffset 0 and epoch -1 unless given). */
export function makeBatch(options: {
  records: TestRecord[];
  firstTimestamp?: number;
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  /** Idempotent producer fields (default -1: none). */
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
}): Buffer {
  const { records } = options;
  const firstTimestamp = options.firstTimestamp ?? 1_700_000_000_000;
  const body = Buffer.concat(records.map((r, i) => encodeRecord(r, i)));
  const batch = Buffer.alloc(BATCH_HEADER_SIZE + body.length);
  batch.writeBigInt64BE(BigInt(options.baseOffset ?? 0), BatchOffsets.baseOffset);
  batch.writeInt32BE(batch.length - 12, BatchOffsets.batchLength);
  batch.writeInt32BE(options.partitionLeaderEpoch ?? -1, BatchOffsets.partitionLeaderEpoch);
  batch.writeInt8(2, BatchOffsets.magic);
  batch.writeInt16BE(0, BatchOffsets.attributes);
  batch.writeInt32BE(records.length - 1, BatchOffsets.lastOffsetDelta);
  batch.writeBigInt64BE(BigInt(firstTimestamp), BatchOffsets.firstTimestamp);
  const maxDelta = Math.max(0, ...records.map((r) => r.timestampDelta ?? 0));
  batch.writeBigInt64BE(BigInt(firstTimestamp + maxDelta), BatchOffsets.maxTimestamp);
  batch.writeBigInt64BE(BigInt(options.producerId ?? -1), BatchOffsets.producerId);
  batch.writeInt16BE(options.producerEpoch ?? -1, BatchOffsets.producerEpoch);
  batch.writeInt32BE(options.baseSequence ?? -1, BatchOffsets.baseSequence);
  batch.writeInt32BE(records.length, BatchOffsets.recordCount);
  body.copy(batch, BATCH_HEADER_SIZE);
  batch.writeUInt32BE(crc32c(batch.subarray(BatchOffsets.attributes)) >>> 0, BatchOffsets.crc);
  return batch;
}

/** A batch of `count` records with `valueSize`-byte values, all stamped `timestamp`. */
export function simpleBatch(count: number, valueSize = 100, timestamp = 1_700_000_000_000): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({ value: Buffer.alloc(valueSize, i % 251) }));
  return makeBatch({ records, firstTimestamp: timestamp });
}

/** Base offsets of the batches in `records`. */
export function batchBaseOffsets(records: Buffer): number[] {
  const out: number[] = [];
  for (let pos = 0; pos < records.length; pos += records.readInt32BE(pos + 8) + 12) out.push(Number(records.readBigInt64BE(pos)));
  return out;
}

export function tempDir(prefix = 'gregor-storage-'): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export const testLogger = silentLogger;

export function testConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return {
    segmentBytes: 1024 * 1024,
    indexIntervalBytes: 4096,
    retentionMs: -1,
    retentionBytes: -1,
    segmentMs: 7 * 24 * 3600 * 1000,
    maxMessageBytes: 1000012,
    fileDeleteDelayMs: 0,
    ...overrides,
  };
}

/** An idempotent producer's batch of `count` records starting at sequence `baseSequence`. */
export function producerBatch(producerId: number, producerEpoch: number, baseSequence: number, count = 1, timestamp = Date.now()): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`p${producerId}-e${producerEpoch}-s${baseSequence + i}`) }));
  return makeBatch({ records, firstTimestamp: timestamp, producerId, producerEpoch, baseSequence });
}
