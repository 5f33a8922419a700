// Test support: forged record batches for issue 12's abuse tests, shared by the decoder's unit test
// (packages/protocol/src/record-batch/decompression-bombs.test.ts) and the broker tests under test/:
// decompression bombs (a small batch whose records inflate far past any cap) and headers that claim
// 2^31-1 records. Every batch has a valid CRC, so only inflating or walking its records finds the lie.
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { crc32c } from '@node-rs/crc32';
import { BatchOffsets as O, CompressionType, encodeRecordBatch, type CompressionCodec } from '@gregor/protocol';
import { XERIAL_MAGIC } from '../../packages/protocol/src/record-batch/codecs/snappy.js';
import { xxhash32 } from '../../packages/protocol/src/record-batch/codecs/xxhash32.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as typeof import('snappy');
const lz4 = require('lz4-napi') as typeof import('lz4-napi');
const zstd = require('zstd-napi/binding') as typeof import('zstd-napi/binding.js');

const MiB = 1024 * 1024;

/** Rewrites the header CRC (Kafka's CRC-32C from the attributes on). */
function resealed(batch: Buffer): Buffer {
  batch.writeUInt32BE(crc32c(batch.subarray(O.attributes)) >>> 0, O.crc);
  return batch;
}

/** A batch of one record whose records section is `records`, compressed with `codec` (header consistent, CRC valid: only inflating finds the bomb). */
export function bombBatch(codec: number, records: Buffer, timestamp = 1): Buffer {
  const header = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: timestamp, records: [] }).subarray(0, O.records);
  const buf = Buffer.concat([header, records]);
  buf.writeInt32BE(buf.length - 12, O.batchLength);
  buf.writeInt16BE(codec, O.attributes);
  buf.writeInt32BE(0, O.lastOffsetDelta);
  buf.writeInt32BE(1, O.recordCount);
  return resealed(buf);
}

/** gzip members concatenate: members of 16 MiB of zeros each, `inflated` bytes in all (a multiple of 16 MiB). */
export function gzipBomb(inflated: number): Buffer {
  const member = gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: inflated / (16 * MiB) }, () => member));
}

/** snappy-java framing of valid 32 KiB blocks of zeros (`inflated` bytes), and a raw block of a few bytes that declares 4 GiB - 1. */
export function snappyBombs(inflated: number): { framed: Buffer; lying: Buffer } {
  const block = snappy.compressSync(Buffer.alloc(32 * 1024));
  const len = Buffer.alloc(4);
  len.writeInt32BE(block.length);
  const header = Buffer.concat([XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])]);
  const framed = Buffer.concat([header, ...Array.from({ length: inflated / (32 * 1024) }, () => [len, block]).flat()]);
  const lying = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x00]);
  return { framed, lying };
}

/** Kafka's lz4 frame (64 KiB blocks, no content size) of blocks of zeros, `inflated` bytes in all. */
export function lz4Bomb(inflated: number): Buffer {
  const head = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0]);
  head[6] = (xxhash32(head.subarray(4, 6)) >>> 8) & 0xff;
  const block = lz4.compressSync(Buffer.alloc(64 * 1024)).subarray(4);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(block.length);
  return Buffer.concat([head, ...Array.from({ length: inflated / (64 * 1024) }, () => [size, block]).flat(), Buffer.alloc(4)]);
}

/** `inflated` zeros streamed as zstd-jni does: no content size in the frame header, so only decoding finds the size. */
export function zstdBomb(inflated: number): Buffer {
  const cctx = new zstd.CCtx();
  cctx.setParameter(zstd.CParameter.compressionLevel, 3);
  const zeros = Buffer.alloc(MiB);
  const out = Buffer.alloc(MiB);
  const parts: Buffer[] = [];
  for (let i = 0; i < inflated / MiB; i++) {
    let input = zeros;
    while (input.length > 0) {
      const [, produced, consumed] = cctx.compressStream2(out, input, zstd.EndDirective.continue);
      parts.push(Buffer.from(out.subarray(0, produced)));
      input = input.subarray(consumed);
    }
  }
  for (;;) {
    const [left, produced] = cctx.compressStream2(out, Buffer.alloc(0), zstd.EndDirective.end);
    parts.push(Buffer.from(out.subarray(0, produced)));
    if (left === 0) break;
  }
  return Buffer.concat(parts);
}

/**
 * Every bomb as a batch, by name: gzip, snappy (framed), snappy's lying raw block, lz4, zstd.
 * `snappyInflated` is separate because snappy's best ratio is about 21:1 (its bomb is the largest).
 */
export function bombBatches(inflated: number, snappyInflated = inflated, timestamp = 1): Map<string, Buffer> {
  const s = snappyBombs(snappyInflated);
  return new Map([
    ['gzip', bombBatch(CompressionType.gzip, gzipBomb(inflated), timestamp)],
    ['snappy', bombBatch(CompressionType.snappy, s.framed, timestamp)],
    ['snappy (raw block declaring 4 GiB)', bombBatch(CompressionType.snappy, s.lying, timestamp)],
    ['lz4', bombBatch(CompressionType.lz4, lz4Bomb(inflated), timestamp)],
    ['zstd', bombBatch(CompressionType.zstd, zstdBomb(inflated), timestamp)],
  ]);
}

/** A batch whose header claims 2^31-1 records while holding one (the offsets attack of issue 12), compressed with `compression`. */
export function fakeCountBatch(compression: CompressionCodec = CompressionType.none, timestamp = Date.now()): Buffer {
  const b = encodeRecordBatch({ baseOffset: 0, compression, firstTimestamp: timestamp, records: [{ key: null, value: Buffer.from('x'), headers: [], timestamp }] });
  b.writeInt32BE(2 ** 31 - 2, O.lastOffsetDelta);
  b.writeInt32BE(2 ** 31 - 1, O.recordCount);
  return resealed(b);
}
