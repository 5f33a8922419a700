import { gunzipSync, gzipSync } from 'node:zlib';
import { corrupt, inflatesTooFar } from './limits.js';

/** Inflate works in chunks of this size and stops as soon as the output passes the cap. */
const CHUNK = 64 * 1024;

export function gzipCompress(data: Buffer): Buffer {
  return gzipSync(data);
}

/** Gunzips (concatenated members too, as Java's GZIPInputStream) without ever holding more than maxBytes + one chunk. */
export function gzipDecompress(data: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: Math.max(1, maxBytes), chunkSize: CHUNK });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw inflatesTooFar('gzip', maxBytes);
    throw corrupt('gzip', (err as Error).message, err);
  }
}
