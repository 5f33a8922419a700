import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { splitBatches } from '@gregor/protocol';
import { fsyncDir } from './checkpoint-file.js';
import { recoverSegment } from './recovery.js';
import { LogSegment, type SegmentOptions } from './segment.js';
import { CLEANED_DIR, SWAP_FILE_SUFFIX, completeSwaps } from './segment-swap.js';

/** A segment being written by the log cleaner (PartitionLog.openCleanedSegment), outside the log until swapped in. */
export class CleanedSegment {
  readonly dir: string;
  readonly #segment: LogSegment;
  #bytes = 0;
  #done = false;

  constructor(dir: string, segment: LogSegment) {
    this.dir = dir;
    this.#segment = segment;
  }

  /** A fresh segment starting at `base` in the log's `cleaned` dir (emptied first: a leftover is an abandoned clean). */
  static open(logDir: string, base: number, options: SegmentOptions, nowMs: number): CleanedSegment {
    const tmpDir = join(logDir, CLEANED_DIR);
    rmSync(tmpDir, { recursive: true, force: true });
    mkdirSync(tmpDir);
    return new CleanedSegment(tmpDir, new LogSegment(tmpDir, base, options, true, nowMs));
  }

  get baseOffset(): number {
    return this.#segment.baseOffset;
  }

  /** Bytes written so far. */
  get size(): number {
    return this.#bytes;
  }

  /** Appends whole batches (offsets assigned, in order, contiguous with what was appended before). */
  append(records: Buffer): void {
    if (this.#done) throw new Error('cleaned segment already finished');
    this.#segment.append(records, splitBatches(records));
    this.#bytes += records.length;
  }

  /** fsyncs what was appended so far off the event loop, so that finish() has little left to write. */
  flushAsync(): Promise<void> {
    return this.#segment.flushLogAsync();
  }

  /** Completes the indexes, fsyncs and closes the files; returns their paths (log, offset index, time index). */
  finish(): string[] {
    this.#done = true;
    try {
      this.#segment.onBecomeInactive();
      this.#segment.flush();
    } finally {
      this.#segment.close();
    }
    return [this.#segment.logPath, this.#segment.offsetIndex.path, this.#segment.timeIndex.path];
  }

  /** Nothing is swapped in: the files are closed and removed. */
  abort(): void {
    if (!this.#done) {
      this.#done = true;
      this.#segment.close();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Kafka's swap protocol: the cleaned segment's files are renamed into the log dir as `*.swap`, `removeOld` unlinks
 * the segments it replaces, then the swap files take their final names; a crash at any step is completed by the
 * next load. Returns the swapped-in segment, open.
 */
export function swapInCleanedSegment(logDir: string, cleaned: CleanedSegment, removeOld: () => void, options: SegmentOptions, nowMs: number): LogSegment {
  const tmpDir = cleaned.dir;
  const base = cleaned.baseOffset;
  for (const path of cleaned.finish()) renameSync(path, join(logDir, path.slice(tmpDir.length + 1) + SWAP_FILE_SUFFIX));
  rmSync(tmpDir, { recursive: true, force: true });
  fsyncDir(logDir);
  removeOld();
  completeSwaps(logDir);
  fsyncDir(logDir);
  const swapped = new LogSegment(logDir, base, options, false, nowMs);
  if (!swapped.loadIndexes()) recoverSegment(swapped, () => {});
  return swapped;
}
