import { CorruptDataError, type Logger } from '@gregor/common';
import { Attributes } from '@gregor/protocol';
import type { BatchHeader } from '@gregor/protocol';
import {
  incrementSequence,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  ProducerAppendInfo,
  ProducerStateEntry,
  type AppendOrigin,
  type BatchMetadata,
} from './producer-state.js';
import { deleteSnapshotFile, listSnapshotOffsets, readSnapshotFile, writeSnapshotFile } from './producer-snapshot.js';

/** `producer.id.expiration.ms` default (Kafka 3.x's broker setting; 2.4 used transactional.id.expiration.ms). */
export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000;

/** The outcome of checking one append's producer batches. */
export interface ProducerAppendAnalysis {
  /** Per producer id, the state after the append; applied with `update` once the append is written. */
  updates: Map<number, ProducerAppendInfo>;
  /** A retried batch already in the log (client appends only): nothing is appended, its offsets are answered. */
  duplicate: BatchMetadata | null;
}

export interface ProducerStateManagerOptions {
  dir: string;
  /** `<topic>-<partition>`, for messages. */
  name: string;
  producerIdExpirationMs: number;
  logger: Logger;
}

/** The last sequence of a batch: base_sequence + lastOffsetDelta, wrapping (DefaultRecordBatch.lastSequence). */
export function batchLastSequence(b: Pick<BatchHeader, 'baseSequence' | 'lastOffsetDelta'>): number {
  return b.baseSequence === NO_SEQUENCE ? NO_SEQUENCE : incrementSequence(b.baseSequence, b.lastOffsetDelta);
}

/**
 * Producer state of one partition (Kafka 2.4's ProducerStateManager): an entry per producer id, the log offset the
 * state is current to (`mapEndOffset`), and `.snapshot` files of the state at chosen offsets, so that a reload or a
 * truncation starts from the last snapshot at or below the wanted offset and replays only the log after it.
 */
export class ProducerStateManager {
  readonly #dir: string;
  readonly #name: string;
  readonly #expirationMs: number;
  readonly #logger: Logger;
  readonly #producers = new Map<number, ProducerStateEntry>();
  #mapEndOffset = 0;
  #lastSnapOffset = 0;

  constructor(options: ProducerStateManagerOptions) {
    this.#dir = options.dir;
    this.#name = options.name;
    this.#expirationMs = options.producerIdExpirationMs;
    this.#logger = options.logger;
  }

  /** The log offset the state covers up to (exclusive). */
  get mapEndOffset(): number {
    return this.#mapEndOffset;
  }

  get isEmpty(): boolean {
    return this.#producers.size === 0;
  }

  /** Every known producer id and its state (a read-only view for tests and admin). */
  activeProducers(): ReadonlyMap<number, ProducerStateEntry> {
    return this.#producers;
  }

  lastEntry(producerId: number): ProducerStateEntry | undefined {
    return this.#producers.get(producerId);
  }

  latestSnapshotOffset(): number | null {
    return listSnapshotOffsets(this.#dir).at(-1) ?? null;
  }

  oldestSnapshotOffset(): number | null {
    return listSnapshotOffsets(this.#dir)[0] ?? null;
  }

  snapshotOffsets(): number[] {
    return listSnapshotOffsets(this.#dir);
  }

  /**
   * Checks the producer batches of one append whose offsets are assigned (Log.analyzeAndValidateProducerState).
   * A client batch that repeats a cached batch (same epoch and sequence range) makes the whole append a duplicate;
   * epoch and sequence errors throw GregorError (47, 45, 59). Nothing changes until `update`.
   */
  analyzeAppend(batches: readonly BatchHeader[], origin: AppendOrigin): ProducerAppendAnalysis {
    const updates = new Map<number, ProducerAppendInfo>();
    for (const b of batches) {
      if (b.producerId === NO_PRODUCER_ID) continue;
      // Control batches (transaction markers) only ever come from a transaction coordinator, which gregor has not.
      if ((b.attributes & Attributes.control) !== 0) continue;
      const last = this.#producers.get(b.producerId);
      if (origin === 'client' && last) {
        const duplicate = last.findDuplicateBatch(b.producerEpoch, b.baseSequence, batchLastSequence(b));
        if (duplicate) return { updates, duplicate };
      }
      let info = updates.get(b.producerId);
      if (!info) updates.set(b.producerId, (info = new ProducerAppendInfo(b.producerId, last ?? new ProducerStateEntry(b.producerId), origin, this.#name)));
      info.appendDataBatch(b.producerEpoch, b.baseSequence, batchLastSequence(b), b.maxTimestamp, b.baseOffset, b.lastOffset);
    }
    return { updates, duplicate: null };
  }

  /** Applies what analyzeAppend collected, after the append was written. */
  update(updates: ReadonlyMap<number, ProducerAppendInfo>): void {
    for (const [producerId, info] of updates) {
      const entry = info.toEntry();
      const current = this.#producers.get(producerId);
      if (current) current.update(entry);
      else this.#producers.set(producerId, entry);
    }
  }

  /** Replays batches read from the log (load, truncation): replication rules, no checks. */
  loadBatches(batches: readonly BatchHeader[]): void {
    this.update(this.analyzeAppend(batches, 'replication').updates);
  }

  updateMapEndOffset(offset: number): void {
    this.#mapEndOffset = offset;
  }

  /** Writes a snapshot at mapEndOffset unless the last one is already there or beyond; `sync` fsyncs it. */
  takeSnapshot(sync = false): void {
    if (this.#mapEndOffset <= this.#lastSnapOffset) return;
    writeSnapshotFile(this.#dir, this.#mapEndOffset, this.#producers.values(), sync);
    this.#lastSnapOffset = this.#mapEndOffset;
  }

  /**
   * Truncation or load to [logStartOffset, logEndOffset]: snapshots outside (logStart, logEnd] go; if the state is
   * not already at logEnd it is reset to the newest remaining snapshot (or emptied at logStart), and the caller
   * replays the log from mapEndOffset (Kafka's truncateAndReload).
   */
  truncateAndReload(logStartOffset: number, logEndOffset: number, nowMs: number): void {
    for (const offset of listSnapshotOffsets(this.#dir)) {
      if (offset > logEndOffset || offset <= logStartOffset) deleteSnapshotFile(this.#dir, offset);
    }
    if (logEndOffset !== this.#mapEndOffset) {
      this.#producers.clear();
      this.#loadFromSnapshot(logStartOffset, nowMs);
    } else {
      this.truncateHead(logStartOffset);
    }
  }

  #loadFromSnapshot(logStartOffset: number, nowMs: number): void {
    for (;;) {
      const offset = listSnapshotOffsets(this.#dir).at(-1);
      if (offset === undefined) {
        this.#lastSnapOffset = logStartOffset;
        this.#mapEndOffset = logStartOffset;
        return;
      }
      try {
        const entries = readSnapshotFile(this.#dir, offset);
        for (const e of entries) if (!this.#isExpired(e, nowMs)) this.#producers.set(e.producerId, e);
        this.#lastSnapOffset = offset;
        this.#mapEndOffset = offset;
        this.#logger.info({ partition: this.#name, offset, producers: this.#producers.size }, 'loaded producer state snapshot');
        return;
      } catch (err) {
        if (!(err instanceof CorruptDataError) && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        this.#logger.warn({ partition: this.#name, offset, err: (err as Error).message }, 'deleting a corrupt producer state snapshot');
        this.#producers.clear();
        deleteSnapshotFile(this.#dir, offset);
      }
    }
  }

  /**
   * The log start moved up (retention, DeleteRecords): producers whose last batch is gone are forgotten (a later
   * append of theirs gets UNKNOWN_PRODUCER_ID unless it starts a new sequence) and older snapshots are deleted.
   */
  truncateHead(logStartOffset: number): void {
    for (const [producerId, entry] of this.#producers) {
      entry.removeBatchesOlderThan(logStartOffset);
      if (entry.lastDataOffset < logStartOffset) this.#producers.delete(producerId);
    }
    this.deleteSnapshotsBefore(logStartOffset);
    if (this.#mapEndOffset < logStartOffset) this.#mapEndOffset = logStartOffset;
    this.#lastSnapOffset = this.latestSnapshotOffset() ?? logStartOffset;
  }

  deleteSnapshotsBefore(offset: number): void {
    for (const o of listSnapshotOffsets(this.#dir)) if (o < offset) deleteSnapshotFile(this.#dir, o);
  }

  /** Forgets everything (the log restarts empty at some offset). */
  truncate(): void {
    this.#producers.clear();
    for (const o of listSnapshotOffsets(this.#dir)) deleteSnapshotFile(this.#dir, o);
    this.#lastSnapOffset = 0;
    this.#mapEndOffset = 0;
  }

  /** Drops producers idle for producer.id.expiration.ms (measured from their last batch's timestamp). */
  removeExpiredProducers(nowMs: number): number {
    let removed = 0;
    for (const [producerId, entry] of this.#producers) {
      if (this.#isExpired(entry, nowMs)) {
        this.#producers.delete(producerId);
        removed++;
      }
    }
    return removed;
  }

  #isExpired(entry: ProducerStateEntry, nowMs: number): boolean {
    return entry.currentTxnFirstOffset < 0 && nowMs - entry.lastTimestamp >= this.#expirationMs;
  }
}
