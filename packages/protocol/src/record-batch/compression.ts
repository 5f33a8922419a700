import { gunzipSync, gzipSync } from 'node:zlib';
import { ErrorCode, GregorError } from '@gregor/common';
import { CompressionType, type CompressionCodec } from './batch-header.js';

/** Compresses and decompresses the records section of a batch (synchronously: batches are small). */
export interface CompressionCodecImpl {
  compress(data: Buffer): Buffer;
  decompress(data: Buffer): Buffer;
}

const NAMES: Record<number, string> = { 0: 'none', 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' };

const gzip: CompressionCodecImpl = {
  compress: (data) => gzipSync(data),
  decompress: (data) => gunzipSync(data),
};

/**
 * Codecs beyond gzip need native or third-party libraries gregor does not bundle (as kafkajs);
 * an application plugs them in with registerCompressionCodec.
 */
const registry = new Map<number, CompressionCodecImpl>([[CompressionType.gzip, gzip]]);

export function registerCompressionCodec(type: CompressionCodec, codec: CompressionCodecImpl): void {
  if (type === CompressionType.none) throw new Error('compression type none takes no codec');
  registry.set(type, codec);
}

export function compressionName(type: number): string {
  return NAMES[type] ?? `unknown(${type})`;
}

/** The codec for a compression type, or UNSUPPORTED_COMPRESSION_TYPE when none is registered. */
export function compressionCodec(type: number): CompressionCodecImpl {
  const codec = registry.get(type);
  if (codec === undefined) {
    throw new GregorError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `no codec registered for compression type ${compressionName(type)}`);
  }
  return codec;
}
