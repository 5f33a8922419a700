import { CorruptDataError } from '@gregor/common';

/**
 * The default cap on what one batch's records may inflate to: Kafka's `fetch.max.bytes` default (50 MiB),
 * the most a consumer accepts in one response. Readers pass their own bound (see decodeRecordBatch).
 */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 52_428_800;

/**
 * The decompression cap of a reader whose own size limit is `limitBytes` (max.message.bytes, a fetch size): Kafka
 * limits compressed sizes, so a limit below the default must not refuse what Kafka would inflate.
 */
export function decompressionCap(limitBytes: number): number {
  return Math.max(limitBytes, DEFAULT_MAX_DECOMPRESSED_BYTES);
}

/** A batch whose records inflate past the reader's cap (a corrupt batch or a decompression bomb). */
export function inflatesTooFar(codec: string, maxBytes: number, detail = ''): CorruptDataError {
  return new CorruptDataError(`${codec} records inflate beyond the ${maxBytes}-byte decompression limit${detail ? ` (${detail})` : ''}`);
}

export function corrupt(codec: string, message: string, cause?: unknown): CorruptDataError {
  return new CorruptDataError(`${codec}: ${message}`, cause === undefined ? undefined : { cause });
}
