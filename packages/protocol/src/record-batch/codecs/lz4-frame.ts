import { corrupt, inflatesTooFar } from './limits.js';
import { lazyNative } from './native.js';
import { xxhash32 } from './xxhash32.js';

type Lz4 = typeof import('lz4-napi');
const native = lazyNative<Lz4>('lz4', 'lz4-napi');

/**
 * The LZ4 frame format as Kafka writes it (KafkaLZ4BlockOutputStream) and librdkafka likewise: magic
 * 0x184D2204 (LE), FLG 0x60 (version 01, independent blocks, no checksums, no content size), BD 0x40
 * (64 KiB blocks), header checksum HC; then blocks [u32 LE size, high bit = stored uncompressed][data];
 * end mark 0. lz4-napi's own frame encoder uses 256 KiB blocks, so gregor frames blocks itself and uses
 * lz4-napi only for the block codec.
 */
const MAGIC = 0x184d2204;
const FLG_VERSION_MASK = 0xc0;
const FLG_VERSION_01 = 0x40;
const FLG_BLOCK_INDEPENDENT = 0x20;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_RESERVED = 0x02;
const FLG_DICT_ID = 0x01;
const KAFKA_FLG = FLG_VERSION_01 | FLG_BLOCK_INDEPENDENT;
const KAFKA_BD = 0x40;
const BLOCK_SIZE = 64 * 1024;
const INCOMPRESSIBLE = 0x80000000;
/** Dependent blocks may refer back this far into earlier output. */
const WINDOW = 64 * 1024;

export interface Lz4Options {
  /**
   * Magic-0 message sets only: Kafka before 0.10 computed HC over the magic as well as FLG and BD, and
   * readers ignore HC for magic 0 (KafkaLZ4BlockInputStream's ignoreFlagDescriptorChecksum). RecordBatch
   * v2 always uses the standard checksum.
   */
  legacyHeaderChecksum?: boolean;
}

function headerChecksum(frame: Buffer, descriptorEnd: number, legacy: boolean): number {
  return (xxhash32(frame.subarray(legacy ? 0 : 4, descriptorEnd)) >>> 8) & 0xff;
}

export function lz4Compress(data: Buffer, options: Lz4Options = {}): Buffer {
  const lz4 = native();
  const head = Buffer.from([0x04, 0x22, 0x4d, 0x18, KAFKA_FLG, KAFKA_BD, 0]);
  head[6] = headerChecksum(head, 6, options.legacyHeaderChecksum === true);
  const parts: Buffer[] = [head];
  for (let pos = 0; pos < data.length; pos += BLOCK_SIZE) {
    const chunk = data.subarray(pos, pos + BLOCK_SIZE);
    // compressSync prepends the uncompressed size (u32 LE); the frame carries the compressed size instead.
    const compressed = lz4.compressSync(chunk).subarray(4);
    const size = Buffer.allocUnsafe(4);
    if (compressed.length < chunk.length) {
      size.writeUInt32LE(compressed.length, 0);
      parts.push(size, compressed);
    } else {
      size.writeUInt32LE((chunk.length | INCOMPRESSIBLE) >>> 0, 0);
      parts.push(size, chunk);
    }
  }
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

function blockMaxSize(bd: number): number {
  if ((bd & 0x8f) !== 0) throw corrupt('lz4', `frame BD byte 0x${bd.toString(16)} has reserved bits set`);
  const code = (bd >> 4) & 0x07;
  if (code < 4) throw corrupt('lz4', `frame BD byte 0x${bd.toString(16)} names an unknown block size`);
  return 1 << (8 + 2 * code);
}

/**
 * What an LZ4 block inflates to, from its sequences' literal and match lengths (no bytes are copied): the
 * size is known, and checked, before anything is allocated, and the decoder gets the exact size (lz4-napi
 * is several times slower when told a larger one).
 */
export function lz4BlockOutputSize(block: Buffer): number {
  const len = block.length;
  let pos = 0;
  let out = 0;
  while (pos < len) {
    const token = block[pos++]!;
    let literals = token >>> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (pos >= len) return -1;
        b = block[pos++]!;
        literals += b;
      } while (b === 255);
    }
    pos += literals;
    out += literals;
    if (pos >= len) return pos === len ? out : -1; // the last sequence has literals only
    pos += 2; // match offset
    let match = token & 0x0f;
    if (match === 15) {
      let b: number;
      do {
        if (pos >= len) return -1;
        b = block[pos++]!;
        match += b;
      } while (b === 255);
    }
    out += match + 4;
  }
  return -1;
}

/** The last WINDOW bytes of the output so far: the dictionary of a dependent block. */
function window(out: Buffer[]): Buffer {
  const tail: Buffer[] = [];
  let size = 0;
  for (let i = out.length - 1; i >= 0 && size < WINDOW; i--) {
    tail.unshift(out[i]!);
    size += out[i]!.length;
  }
  const joined = tail.length === 1 ? tail[0]! : Buffer.concat(tail, size);
  return joined.subarray(Math.max(0, joined.length - WINDOW));
}

/**
 * Reads one LZ4 frame, as KafkaLZ4BlockInputStream does (data after the end mark is ignored), never
 * inflating more than maxBytes: a declared content size above the cap is refused before any block is
 * read, and each block (at most its BD maximum, 4 MiB) is checked as it is inflated.
 */
export function lz4Decompress(data: Buffer, maxBytes: number, options: Lz4Options = {}): Buffer {
  const lz4 = native();
  if (data.length < 7) throw corrupt('lz4', `frame of ${data.length} bytes is shorter than its header`);
  if (data.readUInt32LE(0) !== MAGIC) throw corrupt('lz4', `not an LZ4 frame (magic 0x${data.readUInt32LE(0).toString(16)})`);
  const flg = data[4]!;
  if ((flg & FLG_VERSION_MASK) !== FLG_VERSION_01) throw corrupt('lz4', `frame version ${flg >> 6} is not 1`);
  if ((flg & FLG_RESERVED) !== 0) throw corrupt('lz4', 'frame FLG byte has its reserved bit set');
  if ((flg & FLG_DICT_ID) !== 0) throw corrupt('lz4', 'frames with a dictionary id are not supported');
  const maxBlock = blockMaxSize(data[5]!);
  let pos = 6;
  if ((flg & FLG_CONTENT_SIZE) !== 0) {
    if (data.length < pos + 9) throw corrupt('lz4', 'frame header truncated in its content size');
    const contentSize = data.readBigUInt64LE(pos);
    if (contentSize > BigInt(maxBytes)) throw inflatesTooFar('lz4', maxBytes, `frame declares ${contentSize} bytes`);
    pos += 8;
  }
  if (!options.legacyHeaderChecksum && data[pos] !== headerChecksum(data, pos, false)) throw corrupt('lz4', 'frame descriptor checksum mismatch');
  pos++;
  const independent = (flg & FLG_BLOCK_INDEPENDENT) !== 0;
  const blockChecksums = (flg & FLG_BLOCK_CHECKSUM) !== 0;
  const out: Buffer[] = [];
  let total = 0;
  for (;;) {
    if (data.length - pos < 4) throw corrupt('lz4', `frame truncated at ${pos}: no end mark`);
    const word = data.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break; // end mark; a content checksum may follow (Kafka skips it too)
    const stored = (word & INCOMPRESSIBLE) !== 0;
    const size = word & ~INCOMPRESSIBLE;
    if (size > maxBlock) throw corrupt('lz4', `block of ${size} bytes exceeds the frame's ${maxBlock}-byte maximum`);
    if (data.length - pos < size + (blockChecksums ? 4 : 0)) throw corrupt('lz4', `frame truncated in a ${size}-byte block at ${pos - 4}`);
    const at = pos - 4; // this block's size word
    const block = data.subarray(pos, pos + size);
    pos += size;
    if (blockChecksums) {
      if (xxhash32(block) !== data.readUInt32LE(pos)) throw corrupt('lz4', `block checksum mismatch at ${at}`);
      pos += 4;
    }
    let inflated: Buffer;
    if (stored) inflated = block;
    else {
      const expected = lz4BlockOutputSize(block);
      if (expected < 0 || expected > maxBlock) throw corrupt('lz4', `invalid block at ${at}: ${expected < 0 ? 'sequences overrun the block' : `inflates to ${expected} bytes, over the ${maxBlock}-byte maximum`}`);
      if (total + expected > maxBytes) throw inflatesTooFar('lz4', maxBytes);
      // lz4-napi's block decoder takes the output size as a u32 LE prefix: the block's own size word, just
      // before it, holds it for the call (no copy of the block), then gets its bytes back.
      const prefixed = data.subarray(at, at + 4 + size);
      prefixed.writeUInt32LE(expected, 0);
      try {
        inflated = lz4.uncompressSync(prefixed, independent || out.length === 0 ? undefined : window(out));
      } catch (err) {
        throw corrupt('lz4', `invalid block at ${at}: ${(err as Error).message}`, err);
      } finally {
        prefixed.writeUInt32LE(word, 0);
      }
      if (inflated.length !== expected) throw corrupt('lz4', `block at ${at} inflated to ${inflated.length} bytes, its sequences say ${expected}`);
    }
    total += inflated.length;
    if (total > maxBytes) throw inflatesTooFar('lz4', maxBytes);
    out.push(inflated);
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out, total);
}
