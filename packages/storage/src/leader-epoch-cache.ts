import { join } from 'node:path';
import { CorruptDataError } from '@gregor/common';
import { readCheckpointFile, writeCheckpointFile } from './checkpoint-file.js';

export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

/** Writes a checkpoint file off the event loop, unless `stillWanted` turns false first (tests pass one they complete by hand). */
export type CheckpointWriter = (path: string, lines: readonly string[], stillWanted: () => boolean) => Promise<void>;

/**
 * Runs the checkpoint writes of many partitions (a LeaderAndIsr giving thousands a new leader epoch) a few at a time,
 * started after the current turn of the event loop: the request only queues them, and they do not fill libuv's
 * thread pool (which every other async file call of the broker shares) with thousands of fsyncs at once.
 */
export function boundedCheckpointWriter(write: CheckpointWriter, concurrency = 4): CheckpointWriter {
  const queue: (() => void)[] = [];
  let head = 0;
  let running = 0;
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    while (running < concurrency && head < queue.length) {
      running++;
      queue[head++]!();
    }
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    }
  };
  return (path, lines, stillWanted) =>
    new Promise<void>((resolve, reject) => {
      queue.push(() => {
        write(path, lines, stillWanted)
          .then(resolve, reject)
          .finally(() => {
            running--;
            drain();
          });
      });
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
    });
}

/**
 * KIP-101 leader epoch → start offset history of one partition, persisted in `leader-epoch-checkpoint`
 * (`<epoch> <startOffset>` lines). Epochs and start offsets both strictly increase; every change is
 * written through so a follower can answer OffsetsForLeaderEpoch after a restart.
 *
 * The writes (an fsync each) run off the event loop, one at a time per partition, the last state winning: a
 * leadership change of hundreds of partitions must not stall the broker. Until a write lands, the epochs it carries
 * are only in the log's batches: `firstUndurableOffset` tells the log not to move its recovery point past them, so a
 * crash recovers them by rescanning those batches.
 */
export class LeaderEpochCache {
  readonly path: string;
  #entries: EpochEntry[] = [];
  #logEndOffset: () => number;
  readonly #write: CheckpointWriter | null;
  /** The entries the file is known to hold. */
  #durable: EpochEntry[] = [];
  #writing = false;
  #dirtyAgain = false;
  #idleWaiters: (() => void)[] = [];
  #closed = false;

  /** `write`: the background writer (LogManager's logs use writeCheckpointFileAsync); null writes through on the event loop. */
  constructor(partitionDir: string, logEndOffset: () => number, write: CheckpointWriter | null = null) {
    this.path = join(partitionDir, LEADER_EPOCH_CHECKPOINT_FILE);
    this.#logEndOffset = logEndOffset;
    this.#write = write;
    for (const line of readCheckpointFile(this.path) ?? []) {
      const [epoch, startOffset, extra] = line.split(' ').map(Number);
      if (extra !== undefined || !Number.isInteger(epoch) || !Number.isSafeInteger(startOffset)) {
        throw new CorruptDataError(`${this.path}: malformed entry ${JSON.stringify(line)}`);
      }
      this.#entries.push({ epoch: epoch!, startOffset: startOffset! });
    }
    this.#durable = this.entries();
  }

  /** The smallest start offset of an entry the file does not hold yet (Infinity if it holds them all). */
  get firstUndurableOffset(): number {
    let first = Infinity;
    for (const e of this.#entries) {
      if (!this.#durable.some((d) => d.epoch === e.epoch && d.startOffset === e.startOffset)) first = Math.min(first, e.startOffset);
    }
    return first;
  }

  /** True when the file holds exactly the current entries and no write is in flight. */
  get isDurable(): boolean {
    return !this.#writing && sameEntries(this.#entries, this.#durable);
  }

  /**
   * Writes the file now, on the event loop (clean shutdown), unless a background write is in flight (it could land
   * after this one with older entries). Returns whether the file now holds the current entries.
   */
  flushSyncIfIdle(): boolean {
    if (this.#writing) return false;
    if (!sameEntries(this.#entries, this.#durable)) {
      const snapshot = this.entries();
      writeCheckpointFile(this.path, snapshot.map((e) => `${e.epoch} ${e.startOffset}`));
      this.#durable = snapshot;
    }
    return true;
  }

  entries(): EpochEntry[] {
    return this.#entries.map((e) => ({ ...e }));
  }

  get latestEpoch(): number {
    return this.#entries.at(-1)?.epoch ?? UNDEFINED_EPOCH;
  }

  /**
   * Records that `epoch` starts at `startOffset`. A repeat of the latest epoch is ignored unless it moves the
   * start back; any entry with an epoch >= `epoch` or a start >= `startOffset` is replaced (it is stale).
   */
  assign(epoch: number, startOffset: number): void {
    if (epoch < 0) return;
    const last = this.#entries.at(-1);
    if (last && last.epoch === epoch && startOffset >= last.startOffset) return;
    this.#entries = this.#entries.filter((e) => e.epoch < epoch && e.startOffset < startOffset);
    this.#entries.push({ epoch, startOffset });
    this.#flush();
  }

  /**
   * OffsetsForLeaderEpoch: the end offset of `requestedEpoch` = start of the next higher epoch, or the log end
   * offset for the latest epoch. Also returns the largest known epoch <= requested (KIP-279).
   * Unknown (requested above latest, or nothing cached) → (-1, -1).
   */
  endOffsetFor(requestedEpoch: number): { epoch: number; endOffset: number } {
    const undefinedResult = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (requestedEpoch === UNDEFINED_EPOCH || this.#entries.length === 0) return undefinedResult;
    if (requestedEpoch === this.latestEpoch) return { epoch: requestedEpoch, endOffset: this.#logEndOffset() };
    const next = this.#entries.findIndex((e) => e.epoch > requestedEpoch);
    if (next < 0) return undefinedResult;
    const previous = next > 0 ? this.#entries[next - 1]! : undefined;
    return { epoch: previous ? previous.epoch : requestedEpoch, endOffset: this.#entries[next]!.startOffset };
  }

  /** Removes entries that start at or after `endOffset` (the log was truncated there). */
  truncateFromEnd(endOffset: number): void {
    if (endOffset < 0) return;
    const kept = this.#entries.filter((e) => e.startOffset < endOffset);
    if (kept.length === this.#entries.length) return;
    this.#entries = kept;
    this.#flush();
  }

  /** The log now starts at `startOffset`: drop epochs wholly before it, and move the one containing it to start there. */
  truncateFromStart(startOffset: number): void {
    const before = this.#entries.filter((e) => e.startOffset <= startOffset);
    if (before.length === 0) return;
    const last = before.at(-1)!;
    if (before.length === 1 && last.startOffset === startOffset) return;
    this.#entries = [{ epoch: last.epoch, startOffset }, ...this.#entries.filter((e) => e.startOffset > startOffset)];
    this.#flush();
  }

  clear(): void {
    this.#entries = [];
    this.#flush();
  }

  /** The log closed (or is being deleted): a background write not yet renamed into place is dropped. */
  close(): void {
    this.#closed = true;
  }

  /** Resolves once no write is in flight and the file holds the current entries (or the last write failed). */
  whenIdle(): Promise<void> {
    if (!this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #flush(): void {
    if (!this.#write) {
      const snapshot = this.entries();
      writeCheckpointFile(this.path, snapshot.map((e) => `${e.epoch} ${e.startOffset}`));
      this.#durable = snapshot;
      return;
    }
    if (this.#writing) {
      this.#dirtyAgain = true; // written when the one in flight returns
      return;
    }
    this.#writing = true;
    const snapshot = this.entries();
    this.#write(this.path, snapshot.map((e) => `${e.epoch} ${e.startOffset}`), () => !this.#closed).then(
      () => {
        this.#durable = snapshot;
      },
      () => {
        // Left undurable: the log's recovery point stays below these epochs, and the next change writes again.
      },
    ).finally(() => {
      this.#writing = false;
      if (this.#dirtyAgain && !this.#closed) {
        this.#dirtyAgain = false;
        this.#flush();
      } else {
        for (const wake of this.#idleWaiters.splice(0)) wake();
      }
    });
  }
}

function sameEntries(a: readonly EpochEntry[], b: readonly EpochEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.epoch === b[i]!.epoch && e.startOffset === b[i]!.startOffset);
}
