import { ErrorCode, GregorError } from '@gregor/common';
import { CompressionType } from './batch-header.js';
import { gzipCompress, gzipDecompress } from './codecs/gzip.js';
import { lz4Compress, lz4Decompress } from './codecs/lz4-frame.js';
import { snappyCompress, snappyDecompress } from './codecs/snappy.js';
import { zstdCompress, zstdDecompress } from './codecs/zstd.js';

export { DEFAULT_MAX_DECOMPRESSED_BYTES, decompressionCap } from './codecs/limits.js';

export interface CodecOptions {
  /**
   * The magic of the message set the data belongs to (default 2). Only lz4 cares: magic 0 uses Kafka's
   * legacy frame header checksum (written over the magic too, ignored when read).
   */
  magic?: number;
}

/**
 * Kafka's four codecs for the records section of a batch (or a legacy wrapper's value), synchronous
 * (batches are small). Every decompression takes a cap on its output: inflating past it is a
 * CorruptDataError, found without allocating more than the cap (plus one block or chunk).
 */
export interface CompressionCodecImpl {
  readonly name: string;
  compress(data: Buffer, options?: CodecOptions): Buffer;
  decompress(data: Buffer, maxBytes: number, options?: CodecOptions): Buffer;
}

const NAMES: Record<number, string> = { 0: 'none', 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' };

const CODECS = new Map<number, CompressionCodecImpl>([
  [CompressionType.gzip, { name: 'gzip', compress: gzipCompress, decompress: gzipDecompress }],
  [CompressionType.snappy, { name: 'snappy', compress: snappyCompress, decompress: snappyDecompress }],
  [
    CompressionType.lz4,
    {
      name: 'lz4',
      compress: (data, options) => lz4Compress(data, { legacyHeaderChecksum: options?.magic === 0 }),
      decompress: (data, maxBytes, options) => lz4Decompress(data, maxBytes, { legacyHeaderChecksum: options?.magic === 0 }),
    },
  ],
  [CompressionType.zstd, { name: 'zstd', compress: zstdCompress, decompress: zstdDecompress }],
]);

export function compressionName(type: number): string {
  return NAMES[type] ?? `unknown(${type})`;
}

/** The codec for a compression type; UNSUPPORTED_COMPRESSION_TYPE for none or an unknown type. */
export function compressionCodec(type: number): CompressionCodecImpl {
  const codec = CODECS.get(type);
  if (codec === undefined) {
    throw new GregorError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `no codec for compression type ${compressionName(type)}`);
  }
  return codec;
}
