import type { Logger } from '@gregor/common';
import { BATCH_HEADER_SIZE, batchCountsProblem, batchSizeAt, validateBatch, type BatchHeader } from '@gregor/protocol';
import type { LogSegment } from './segment.js';

const RECOVERY_WINDOW_BYTES = 1024 * 1024;

export interface SegmentRecoveryResult {
  validBytes: number;
  truncatedBytes: number;
  /** Offset at which the log now ends (the first offset that was dropped, if any). */
  nextOffset: number;
  /** Why the scan stopped early, or null if every byte was a sound batch. */
  problem: string | null;
}

/**
 * Re-reads a segment from its first byte: every batch must have a sane length, magic 2, a matching CRC and the
 * next offset in sequence. Indexes are rebuilt from the sound batches and the file is cut at the first bad one.
 */
export function recoverSegment(segment: LogSegment, onBatch: (batch: BatchHeader) => void): SegmentRecoveryResult {
  segment.resetIndexes();
  const fileSize = segment.fileSize();
  // Batches are read through a large window: one read call per window rather than two per batch.
  let window: Buffer = Buffer.alloc(0);
  let windowStart = 0;
  const view = (position: number, length: number): Buffer => {
    if (position + length > windowStart + window.length) {
      windowStart = position;
      window = segment.readBytes(position, Math.max(length, RECOVERY_WINDOW_BYTES));
    }
    return window.subarray(position - windowStart, position - windowStart + length);
  };
  let position = 0;
  let expected = segment.baseOffset;
  let problem: string | null = null;
  while (position < fileSize) {
    if (fileSize - position < BATCH_HEADER_SIZE) {
      problem = 'torn batch header';
      break;
    }
    const size = batchSizeAt(view(position, BATCH_HEADER_SIZE), 0)!;
    if (size < BATCH_HEADER_SIZE || position + size > fileSize) {
      problem = `batch length ${size} runs past the end of the file or is too small`;
      break;
    }
    let header: BatchHeader;
    try {
      // Magic 2, CRC-32C; then the counts and the offset sequence.
      header = validateBatch(view(position, size), 0, position);
    } catch (err) {
      problem = (err as Error).message;
      break;
    }
    problem = batchCountsProblem(header);
    if (problem === null && header.baseOffset !== expected) problem = `base offset ${header.baseOffset} where ${expected} was expected`;
    if (problem !== null) break;
    segment.indexBatch(header);
    onBatch(header);
    expected = header.lastOffset + 1;
    position += header.sizeInBytes;
  }
  const truncatedBytes = fileSize - position;
  if (truncatedBytes > 0) segment.truncateToPosition(position, expected);
  return { validBytes: position, truncatedBytes, nextOffset: expected, problem };
}

/**
 * Recovers `segments` (ascending, the unflushed tail of a log) in order. At the first damaged segment the file is
 * cut and the scan stops: everything after it is unreliable. Returns how many of `segments` to keep.
 */
export function recoverSegments(
  segments: readonly LogSegment[],
  context: { topic: string; partition: number; logger: Logger; onBatch: (batch: BatchHeader) => void },
): number {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const result = recoverSegment(segment, context.onBatch);
    if (result.truncatedBytes > 0) {
      const dropped = segments.length - i - 1;
      context.logger.warn(
        {
          topic: context.topic,
          partition: context.partition,
          offset: result.nextOffset,
          bytesDropped: result.truncatedBytes,
          segment: segment.logPath,
          laterSegmentsDeleted: dropped,
          problem: result.problem,
        },
        'log recovery truncated a damaged tail',
      );
      return i + 1;
    }
  }
  return segments.length;
}
