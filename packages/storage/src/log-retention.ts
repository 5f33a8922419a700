import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Logger } from '@gregor/common';
import type { LogConfig } from './log-config.js';
import type { LogSegment } from './segment.js';

/** What retention deletes from a partition log, and the delayed removal of deleted segments' files. */

export interface RetentionBounds {
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
}

/**
 * Retention (Kafka's deleteOldSegments): the oldest whole segments that are past `retentionMs`, over `retentionBytes`,
 * or wholly below logStartOffset, but only segments entirely below the high watermark. `segments` ascending.
 */
export function retentionDeletable(segments: readonly LogSegment[], config: LogConfig, bounds: RetentionBounds, nowMs: number): LogSegment[] {
  const { retentionMs, retentionBytes } = config;
  let sizeOver = retentionBytes >= 0 ? segments.reduce((n, s) => n + s.size, 0) - retentionBytes : -1;
  const deletable: LogSegment[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const next = segments[i + 1];
    const upperBound = next ? next.baseOffset : bounds.logEndOffset;
    if (upperBound > bounds.highWatermark || (!next && segment.isEmpty())) break;
    const belowStart = next !== undefined && next.baseOffset <= bounds.logStartOffset;
    const expired = retentionMs >= 0 && nowMs - segment.largestTimestamp() > retentionMs;
    const oversized = sizeOver >= 0 && sizeOver - segment.size >= 0;
    if (!belowStart && !expired && !oversized) break;
    if (sizeOver >= 0) sizeOver -= segment.size;
    deletable.push(segment);
  }
  return deletable;
}

/** Kafka's deleteLogStartOffsetBreachedSegments: segments whose successor starts at or below the log start. */
export function segmentsBelowLogStart(segments: readonly LogSegment[], logStartOffset: number): LogSegment[] {
  const out: LogSegment[] = [];
  for (let i = 0; i + 1 < segments.length && segments[i + 1]!.baseOffset <= logStartOffset; i++) out.push(segments[i]!);
  return out;
}

/** Files of deleted segments (`*.deleted`) removed after `file.delete.delay.ms`; each timer owned here and cleared on close. */
export class DelayedFileDeletes {
  readonly #pending = new Map<NodeJS.Timeout, string[]>();
  /** Files whose asynchronous unlink has not finished yet. */
  readonly #unlinking = new Set<string>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  schedule(paths: string[], delayMs: number): void {
    if (delayMs <= 0) {
      this.#unlink(paths);
      return;
    }
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      this.#unlink(paths);
    }, delayMs);
    timer.unref();
    this.#pending.set(timer, paths);
  }

  /** Off the event loop: unlinking a large segment can take long enough to be felt by every request. */
  #unlink(paths: string[]): void {
    for (const path of paths) {
      this.#unlinking.add(path);
      rm(path, { force: true })
        .catch((err: unknown) => this.#logger.error({ err, path }, 'deleting a segment file failed'))
        .finally(() => this.#unlinking.delete(path));
    }
  }

  /**
   * Pending deletions finish now (the log is closing). Synchronous on purpose: LocalLog.close() is, and its callers
   * (LogManager's shutdown, deleteLog, a failed log dir) go on at once, e.g. renaming or leaving the directory; a
   * closed log leaves none of its files behind. Only the files deleted within the last file.delete.delay.ms are left
   * here. Files still being unlinked asynchronously are removed too (unlinking a gone file with force is a no-op).
   */
  finishAll(): void {
    for (const [timer, paths] of this.#pending) {
      clearTimeout(timer);
      for (const path of paths) rmSync(path, { force: true });
    }
    this.#pending.clear();
    for (const path of this.#unlinking) rmSync(path, { force: true });
  }
}
