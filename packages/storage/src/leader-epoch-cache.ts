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

/**
 * KIP-101 leader epoch → start offset history of one partition, persisted in `leader-epoch-checkpoint`
 * (`<epoch> <startOffset>` lines). Epochs and start offsets both strictly increase; every change is
 * written through so a follower can answer OffsetsForLeaderEpoch after a restart.
 */
export class LeaderEpochCache {
  readonly path: string;
  #entries: EpochEntry[] = [];
  #logEndOffset: () => number;

  constructor(partitionDir: string, logEndOffset: () => number) {
    this.path = join(partitionDir, LEADER_EPOCH_CHECKPOINT_FILE);
    this.#logEndOffset = logEndOffset;
    for (const line of readCheckpointFile(this.path) ?? []) {
      const [epoch, startOffset, extra] = line.split(' ').map(Number);
      if (extra !== undefined || !Number.isInteger(epoch) || !Number.isSafeInteger(startOffset)) {
        throw new CorruptDataError(`${this.path}: malformed entry ${JSON.stringify(line)}`);
      }
      this.#entries.push({ epoch: epoch!, startOffset: startOffset! });
    }
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

  #flush(): void {
    writeCheckpointFile(
      this.path,
      this.#entries.map((e) => `${e.epoch} ${e.startOffset}`),
    );
  }
}
