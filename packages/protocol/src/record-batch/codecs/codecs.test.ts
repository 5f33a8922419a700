import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { ErrorCode } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { gzipDecompress } from './gzip.js';
import { lz4Compress, lz4Decompress } from './lz4-frame.js';
import { snappyCompress, snappyDecompress, XERIAL_MAGIC } from './snappy.js';
import { xxhash32 } from './xxhash32.js';
import { zstdCompress, zstdDecompress } from './zstd.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as typeof import('snappy');
const lz4 = require('lz4-napi') as typeof import('lz4-napi');
const zstd = require('zstd-napi/binding') as typeof import('zstd-napi/binding.js');

/** Compressible but not trivial: 300 KiB of numbered lines. */
function sample(size = 300 * 1024): Buffer {
  const lines: string[] = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const line = `line ${i} ${'abcdefghij'.repeat(i % 7)} ${(i * 7919) % 104729}\n`;
    lines.push(line);
    n += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, size);
}

function random(size: number): Buffer {
  const b = Buffer.alloc(size);
  let x = 12345;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

/** Buffer equality without vitest's element-by-element diffing (slow on hundreds of KiB). */
function expectSame(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(Buffer.compare(actual, expected)).toBe(0);
}

const corrupt = expect.objectContaining({ code: ErrorCode.CORRUPT_MESSAGE });
const over = (limit: number) => expect.objectContaining({ code: ErrorCode.CORRUPT_MESSAGE, message: expect.stringContaining(`${limit}-byte decompression limit`) });

describe('gzip', () => {
  it('reads concatenated members and refuses truncated streams', () => {
    const a = Buffer.from('first member ');
    const b = Buffer.from('second member');
    expect(gzipDecompress(Buffer.concat([gzipSync(a), gzipSync(b)]), 1000).toString()).toBe('first member second member');
    const gz = gzipSync(sample());
    expect(() => gzipDecompress(gz.subarray(0, gz.length - 10), 1 << 20)).toThrow(corrupt);
  });
});

describe('snappy (snappy-java framing)', () => {
  it('writes the xerial header and 32 KiB blocks, each [i32 BE length][raw snappy block]', () => {
    const data = sample(100 * 1024);
    const framed = snappyCompress(data);
    expectSame(framed.subarray(0, 8), XERIAL_MAGIC);
    expect(framed.readInt32BE(8)).toBe(1);
    expect(framed.readInt32BE(12)).toBe(1);
    let pos = 16;
    const blocks: Buffer[] = [];
    while (pos < framed.length) {
      const len = framed.readInt32BE(pos);
      blocks.push(snappy.uncompressSync(framed.subarray(pos + 4, pos + 4 + len), { asBuffer: true }) as Buffer);
      pos += 4 + len;
    }
    expect(pos).toBe(framed.length);
    expect(blocks.map((b) => b.length)).toEqual([32768, 32768, 32768, 4096]);
    expectSame(Buffer.concat(blocks), data);
    expectSame(snappyDecompress(framed, data.length), data);
  });

  it('reads raw unframed snappy, as snappy-java does when the header is absent', () => {
    const data = sample();
    expectSame(snappyDecompress(snappy.compressSync(data), data.length), data);
  });

  it('reads concatenated framed streams', () => {
    const a = sample(40_000);
    const b = random(10_000);
    expectSame(snappyDecompress(Buffer.concat([snappyCompress(a), snappyCompress(b)]), 50_000), Buffer.concat([a, b]));
  });

  it('refuses truncated or overrunning blocks', () => {
    const framed = snappyCompress(sample());
    expect(() => snappyDecompress(framed.subarray(0, framed.length - 1), 1 << 20)).toThrow(corrupt);
    const lying = Buffer.from(framed);
    lying.writeInt32BE(0x7fffffff, 16);
    expect(() => snappyDecompress(lying, 1 << 20)).toThrow(corrupt);
    expect(() => snappyDecompress(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 1 << 20)).toThrow(corrupt);
  });

  it('checks each block length it declares against the cap before inflating it', () => {
    const data = sample(100 * 1024);
    expect(() => snappyDecompress(snappyCompress(data), 70_000)).toThrow(over(70_000));
    expect(() => snappyDecompress(snappy.compressSync(data), 70_000)).toThrow(over(70_000));
  });
});

describe('lz4 (Kafka LZ4 frame)', () => {
  it('writes the frame Kafka writes: FLG 0x60, BD 0x40 (64 KiB blocks), HC 0x82, end mark, no checksums', () => {
    const data = sample(200 * 1024);
    const frame = lz4Compress(data);
    expect(frame.subarray(0, 7).toString('hex')).toBe('04224d18604082');
    const sizes: number[] = [];
    let pos = 7;
    for (;;) {
      const word = frame.readUInt32LE(pos);
      pos += 4;
      if (word === 0) break;
      const size = word & 0x7fffffff;
      sizes.push(lz4.uncompressSync(Buffer.concat([Buffer.from([0, 0, 1, 0]), frame.subarray(pos, pos + size)])).length);
      pos += size;
    }
    expect(pos).toBe(frame.length);
    expect(sizes).toEqual([65536, 65536, 65536, 8192]);
    // lz4-napi's own frame decoder (lz4_flex) reads it too.
    expectSame(lz4.decompressFrameSync(frame), data);
    expectSame(lz4Decompress(frame, data.length), data);
  });

  it('stores incompressible blocks raw, with the high bit of the block size set', () => {
    const data = random(70_000);
    const frame = lz4Compress(data);
    expect(frame.readUInt32LE(7)).toBe((0x80000000 | 65536) >>> 0);
    expectSame(lz4Decompress(frame, data.length), data);
    expectSame(lz4.decompressFrameSync(frame), data);
  });

  it('reads frames of other writers: larger blocks and checksums (lz4-napi), content size, dependent blocks', () => {
    const data = sample(600 * 1024);
    const napi = lz4.compressFrameSync(data, { blockChecksums: true, contentChecksum: true });
    expect(napi[5]).not.toBe(0x40);
    expectSame(lz4Decompress(napi, data.length), data);

    // A frame declaring its content size, and a second block compressed against the first (linked blocks).
    const first = data.subarray(0, 65536);
    const second = data.subarray(65536, 131072);
    const flg = 0x40 | 0x08; // version 01, dependent blocks, content size
    const head = Buffer.alloc(15);
    head.writeUInt32LE(0x184d2204, 0);
    head[4] = flg;
    head[5] = 0x40;
    head.writeBigUInt64LE(131072n, 6);
    head[14] = (xxhash32(head.subarray(4, 14)) >>> 8) & 0xff;
    const block = (b: Buffer) => {
      const size = Buffer.alloc(4);
      size.writeUInt32LE(b.length);
      return [size, b];
    };
    const b1 = lz4.compressSync(first).subarray(4);
    const b2 = lz4.compressSync(second, first).subarray(4);
    const linked = Buffer.concat([head, ...block(b1), ...block(b2), Buffer.alloc(4)]);
    expectSame(lz4Decompress(linked, 131072), data.subarray(0, 131072));
    expect(() => lz4Decompress(linked, 131071)).toThrow(over(131071));
  });

  it('checks the header checksum, and for magic 0 writes and ignores the legacy one', () => {
    const data = sample(1000);
    const frame = lz4Compress(data);
    const bad = Buffer.from(frame);
    bad[6] ^= 0xff;
    expect(() => lz4Decompress(bad, 1 << 20)).toThrow(expect.objectContaining({ message: expect.stringContaining('descriptor checksum') }));
    const legacy = lz4Compress(data, { legacyHeaderChecksum: true });
    expect(legacy[6]).toBe((xxhash32(Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40])) >>> 8) & 0xff);
    expect(legacy[6]).not.toBe(frame[6]);
    expectSame(lz4Decompress(legacy, 1 << 20, { legacyHeaderChecksum: true }), data);
    expectSame(lz4Decompress(bad, 1 << 20, { legacyHeaderChecksum: true }), data);
  });

  it('refuses bad frames: magic, version, block size over the maximum, truncation, block checksum', () => {
    const frame = lz4Compress(sample(100_000));
    const with_ = (i: number, v: number) => {
      const b = Buffer.from(frame);
      b[i] = v;
      return b;
    };
    expect(() => lz4Decompress(with_(0, 0), 1 << 20)).toThrow(corrupt);
    expect(() => lz4Decompress(with_(4, 0xa0), 1 << 20)).toThrow(corrupt);
    const huge = Buffer.from(frame);
    huge.writeUInt32LE(65537, 7);
    expect(() => lz4Decompress(huge, 1 << 20)).toThrow(expect.objectContaining({ message: expect.stringContaining('exceeds') }));
    expect(() => lz4Decompress(frame.subarray(0, frame.length - 4), 1 << 20)).toThrow(corrupt);
    const checked = lz4.compressFrameSync(sample(1000), { blockChecksums: true });
    checked[checked.length - 6] ^= 1; // inside the block checksum
    expect(() => lz4Decompress(checked, 1 << 20)).toThrow(expect.objectContaining({ message: expect.stringContaining('checksum') }));
  });

  it('refuses a declared content size above the cap before reading any block', () => {
    const head = Buffer.alloc(15);
    head.writeUInt32LE(0x184d2204, 0);
    head[4] = 0x68;
    head[5] = 0x40;
    head.writeBigUInt64LE(1n << 40n, 6);
    head[14] = (xxhash32(head.subarray(4, 14)) >>> 8) & 0xff;
    expect(() => lz4Decompress(head, 1 << 20)).toThrow(expect.objectContaining({ message: expect.stringContaining('declares 1099511627776 bytes') }));
  });
});

describe('zstd', () => {
  it('round-trips one-shot frames (with content size) and streamed frames (without), concatenated', () => {
    const data = sample();
    const oneShot = zstdCompress(data);
    expect(zstd.getFrameContentSize(oneShot)).toBe(data.length);
    expectSame(zstdDecompress(oneShot, data.length), data);

    const cctx = new zstd.CCtx();
    cctx.setParameter(zstd.CParameter.compressionLevel, 3);
    // Fed in two calls, as a streaming writer (zstd-jni's ZstdOutputStream) does: no content size in the header.
    const out = Buffer.alloc(zstd.compressBound(data.length));
    const [, first] = cctx.compressStream2(out, data, zstd.EndDirective.continue);
    const [, last] = cctx.compressStream2(out.subarray(first), Buffer.alloc(0), zstd.EndDirective.end);
    const streamed = out.subarray(0, first + last);
    expect(zstd.getFrameContentSize(streamed)).toBe(null);
    expectSame(zstdDecompress(streamed, data.length), data);
    expectSame(zstdDecompress(Buffer.concat([streamed, oneShot]), 2 * data.length), Buffer.concat([data, data]));
  });

  it('refuses garbage and truncated frames', () => {
    const frame = zstdCompress(sample());
    expect(() => zstdDecompress(Buffer.from('not zstd at all'), 1 << 20)).toThrow(corrupt);
    expect(() => zstdDecompress(frame.subarray(0, frame.length - 3), 1 << 20)).toThrow(corrupt);
    expect(() => zstdDecompress(Buffer.alloc(0), 1 << 20)).toThrow(corrupt);
  });
});
