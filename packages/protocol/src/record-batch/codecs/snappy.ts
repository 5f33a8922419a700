import { corrupt, inflatesTooFar } from './limits.js';
import { lazyNative } from './native.js';

type Snappy = typeof import('snappy');
const native = lazyNative<Snappy>('snappy', 'snappy');

/**
 * snappy-java's stream framing, which Kafka's producer writes (SnappyOutputStream): the header
 * `82 'SNAPPY' 00`, version 1 and minimum compatible version 1 (i32 BE each), then blocks of
 * [i32 BE compressed length][raw snappy block], each block holding at most 32 KiB of input.
 */
export const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const HEADER_SIZE = 16;
const BLOCK_SIZE = 32 * 1024;

function header(): Buffer {
  const h = Buffer.alloc(HEADER_SIZE);
  XERIAL_MAGIC.copy(h, 0);
  h.writeInt32BE(1, 8);
  h.writeInt32BE(1, 12);
  return h;
}

export function snappyCompress(data: Buffer): Buffer {
  const snappy = native();
  const parts: Buffer[] = [header()];
  for (let pos = 0; pos < data.length; pos += BLOCK_SIZE) {
    const block = snappy.compressSync(data.subarray(pos, pos + BLOCK_SIZE));
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(block.length, 0);
    parts.push(len, block);
  }
  return Buffer.concat(parts);
}

function isHeaderAt(data: Buffer, pos: number): boolean {
  return data.length - pos >= HEADER_SIZE && data.compare(XERIAL_MAGIC, 0, XERIAL_MAGIC.length, pos, pos + XERIAL_MAGIC.length) === 0;
}

/** The uncompressed length a raw snappy block declares (its leading varint, at most 32 bits). */
export function snappyDeclaredLength(block: Buffer): number {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (i >= block.length) throw corrupt('snappy', 'block truncated in its length varint');
    const b = block[i]!;
    value += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) {
      if (value > 0xffffffff) break;
      return value;
    }
  }
  throw corrupt('snappy', 'block length varint is longer than 32 bits');
}

function uncompressBlock(snappy: Snappy, block: Buffer): Buffer {
  try {
    return snappy.uncompressSync(block, { asBuffer: true }) as Buffer;
  } catch (err) {
    throw corrupt('snappy', `invalid block: ${(err as Error).message}`, err);
  }
}

/**
 * Reads snappy-java framed data or, like snappy-java's SnappyInputStream, a raw unframed snappy block
 * when the header is absent. Every block's declared length is checked against the cap before the block
 * is inflated, so nothing larger than the cap is ever allocated.
 */
export function snappyDecompress(data: Buffer, maxBytes: number): Buffer {
  const snappy = native();
  if (!isHeaderAt(data, 0)) {
    const declared = snappyDeclaredLength(data);
    if (declared > maxBytes) throw inflatesTooFar('snappy', maxBytes, `block declares ${declared} bytes`);
    return uncompressBlock(snappy, data);
  }
  const out: Buffer[] = [];
  let total = 0;
  let pos = 0;
  while (pos < data.length) {
    // snappy-java accepts concatenated streams: a header may start again between blocks.
    if (isHeaderAt(data, pos)) {
      pos += HEADER_SIZE;
      continue;
    }
    if (data.length - pos < 4) throw corrupt('snappy', `stream truncated at ${pos}: ${data.length - pos} bytes left, need a block length`);
    const length = data.readInt32BE(pos);
    pos += 4;
    if (length < 0 || length > data.length - pos) throw corrupt('snappy', `block of ${length} bytes at ${pos - 4} overruns the ${data.length}-byte stream`);
    const block = data.subarray(pos, pos + length);
    pos += length;
    const declared = snappyDeclaredLength(block);
    if (total + declared > maxBytes) throw inflatesTooFar('snappy', maxBytes, `${total} bytes inflated, next block declares ${declared}`);
    const inflated = uncompressBlock(snappy, block);
    total += inflated.length;
    out.push(inflated);
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out, total);
}
