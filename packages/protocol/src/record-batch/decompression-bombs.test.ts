import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { crc32c } from '@node-rs/crc32';
import { ErrorCode } from '@gregor/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { BatchOffsets as O, CompressionType } from './batch-header.js';
import { XERIAL_MAGIC } from './codecs/snappy.js';
import { xxhash32 } from './codecs/xxhash32.js';
import { decodeRecordBatch } from './decode-record-batch.js';
import { encodeRecordBatch } from './encode-record-batch.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as typeof import('snappy');
const lz4 = require('lz4-napi') as typeof import('lz4-napi');
const zstd = require('zstd-napi/binding') as typeof import('zstd-napi/binding.js');

const MiB = 1024 * 1024;
/** What each bomb inflates to, and the cap the reader sets. */
const INFLATED = 128 * MiB;
const CAP = 1 * MiB;

/** A batch of one record whose records section is `records`, compressed with `codec` (CRC valid). */
function batchWith(codec: number, records: Buffer): Buffer {
  const header = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: 1, records: [] }).subarray(0, O.records);
  const buf = Buffer.concat([header, records]);
  buf.writeInt32BE(buf.length - 12, O.batchLength);
  buf.writeInt16BE(codec, O.attributes);
  buf.writeInt32BE(1, O.recordCount);
  buf.writeUInt32BE(crc32c(buf.subarray(O.attributes)) >>> 0, O.crc);
  return buf;
}

function gzipBomb(): Buffer {
  // gzip members concatenate: 8 members of 16 MiB of zeros each.
  const member = gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: INFLATED / (16 * MiB) }, () => member));
}

function snappyBombs(): { framed: Buffer; lying: Buffer } {
  // snappy-java framing: 4096 valid blocks of 32 KiB of zeros.
  const block = snappy.compressSync(Buffer.alloc(32 * 1024));
  const len = Buffer.alloc(4);
  len.writeInt32BE(block.length);
  const header = Buffer.concat([XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])]);
  const framed = Buffer.concat([header, ...Array.from({ length: INFLATED / (32 * 1024) }, () => [len, block]).flat()]);
  // A raw block of a few bytes that declares 4 GiB - 1.
  const lying = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x00]);
  return { framed, lying };
}

function lz4Bomb(): Buffer {
  // Kafka's frame (64 KiB blocks, no content size) of 2048 blocks of zeros.
  const head = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0]);
  head[6] = (xxhash32(head.subarray(4, 6)) >>> 8) & 0xff;
  const block = lz4.compressSync(Buffer.alloc(64 * 1024)).subarray(4);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(block.length);
  return Buffer.concat([head, ...Array.from({ length: INFLATED / (64 * 1024) }, () => [size, block]).flat(), Buffer.alloc(4)]);
}

function zstdBomb(): Buffer {
  // Streamed as zstd-jni does: no content size in the frame header, so only decoding finds the size.
  const cctx = new zstd.CCtx();
  cctx.setParameter(zstd.CParameter.compressionLevel, 3);
  const zeros = Buffer.alloc(MiB);
  const out = Buffer.alloc(MiB);
  const parts: Buffer[] = [];
  for (let i = 0; i < INFLATED / MiB; i++) {
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

function status(field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/self/status`);
  return Number(m[1]) * 1024;
}

/** How far the resident set grows while `fn` runs: Linux's peak RSS (VmHWM), reset first (clear_refs 5). */
function rssGrowth(fn: () => void): number {
  (globalThis as { gc?: () => void }).gc?.();
  writeFileSync('/proc/self/clear_refs', '5');
  const before = status('VmRSS');
  fn();
  return status('VmHWM') - before;
}

function refused(batch: Buffer, cap = CAP): unknown {
  try {
    decodeRecordBatch(batch, 0, { maxDecompressedBytes: cap });
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('decompression bombs: a small batch inflating far past the cap is refused without inflating it', () => {
  const bombs = new Map<string, Buffer>();
  beforeAll(() => {
    bombs.set('gzip', batchWith(CompressionType.gzip, gzipBomb()));
    const s = snappyBombs();
    bombs.set('snappy', batchWith(CompressionType.snappy, s.framed));
    bombs.set('snappy (raw block declaring 4 GiB)', batchWith(CompressionType.snappy, s.lying));
    bombs.set('lz4', batchWith(CompressionType.lz4, lz4Bomb()));
    bombs.set('zstd', batchWith(CompressionType.zstd, zstdBomb()));
  }, 120_000);

  it('the bombs are small and really inflate to 128 MiB (the control: a cap above it decodes zstd, and the RSS probe sees it)', () => {
    // snappy's best ratio is about 21:1, the others' far higher.
    for (const [name, batch] of bombs) expect(batch.length, name).toBeLessThan(INFLATED / 16);
    expect(bombs.get('zstd')!.length).toBeLessThan(64 * 1024);
    let err: unknown;
    const grown = rssGrowth(() => {
      err = refused(bombs.get('zstd')!, 2 * INFLATED);
    });
    // 128 MiB of zeros are no valid records: the decoder fails after inflating, having held all of it.
    expect(err).toMatchObject({ code: ErrorCode.CORRUPT_MESSAGE, message: expect.not.stringContaining('decompression limit') });
    expect(grown).toBeGreaterThan(INFLATED / 2);
  });

  it.each(['gzip', 'snappy', 'snappy (raw block declaring 4 GiB)', 'lz4', 'zstd'])('%s: CorruptDataError at the cap, resident memory well under the inflated size', (name) => {
    let err: unknown;
    const grown = rssGrowth(() => {
      err = refused(bombs.get(name)!);
    });
    expect(err).toMatchObject({ code: ErrorCode.CORRUPT_MESSAGE, message: expect.stringContaining(`${CAP}-byte decompression limit`) });
    expect(grown).toBeLessThan(24 * MiB);
  });
});
