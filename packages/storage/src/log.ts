import { mkdirSync } from 'node:fs';
import type { BatchHeader } from '@gregor/protocol';
import { ErrorCode, GregorError, type Logger } from '@gregor/common';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import { validateLogConfig, type LogConfig } from './log-config.js';
import type { ReadBufferPool } from './read-buffer-pool.js';
import { nodeIo } from './segment-io.js';
import { batchFirstOffset } from './producer-state.js';
import { DEFAULT_PRODUCER_ID_EXPIRATION_MS, ProducerStateManager } from './producer-state-manager.js';
import type { LeaderAppendInfo, PartitionLogOptions } from './log-options.js';
import { checkFollowerAppend, planLeaderAppend, stampLeaderAppend } from './log-append.js';
import { legacyOffsetsBefore, offsetForTimestamp, readSegments } from './log-read.js';
import { retentionDeletable } from './log-retention.js';
import { rebuildProducerState } from './producer-state-rebuild.js';
import { openLeaderEpochCache } from './log-load.js';
import { LocalLog } from './local-log.js';
import type { CleanedSegment } from './cleaned-segment.js';

export type { LeaderAppendInfo, PartitionLogOptions } from './log-options.js';
export { CleanedSegment } from './cleaned-segment.js';

/**
 * One partition's log (Kafka's `Log`): segments keyed by base offset, the last one active, kept on disk by LocalLog;
 * this class holds what the offsets mean (log start, high watermark) with the producer state and leader epochs. All
 * file calls are synchronous, so appends are ordered by Node's single thread and a write error surfaces at its call site.
 */
export class PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  readonly leaderEpochCache: LeaderEpochCache;
  /** Moved only by the partition's replica state (Kafka's Partition) and restored from the checkpoint at load. */
  #highWatermark = 0;
  #config: LogConfig;
  #logger: Logger;
  #time: () => number;
  /** The segments, LEO and recovery point. */
  readonly #local: LocalLog;
  #logStartOffset = 0;
  #closed = false;
  readonly #producerState: ProducerStateManager;

  constructor(options: PartitionLogOptions) {
    validateLogConfig(options.config);
    this.topic = options.topic;
    this.partition = options.partition;
    this.dir = options.dir;
    this.#config = { ...options.config };
    this.#logger = options.logger;
    this.#time = options.time ?? Date.now;
    this.#local = new LocalLog({
      dir: this.dir,
      topic: this.topic,
      partition: this.partition,
      config: () => this.#config,
      logger: this.#logger,
      io: options.io ?? nodeIo,
      time: this.#time,
      recoveryPoint: options.recoveryPoint ?? 0,
      // Not past an epoch whose leader-epoch-checkpoint write has not landed yet, so that after a crash recovery
      // rescans its batches and finds it again.
      durableUpTo: (offset) => Math.min(offset, this.leaderEpochCache.firstUndurableOffset),
      onRoll: (baseOffset) => {
        this.#producerState.updateMapEndOffset(baseOffset);
        this.#producerState.takeSnapshot();
      },
    });
    mkdirSync(this.dir, { recursive: true });
    const epochs = openLeaderEpochCache(this.dir, () => this.#local.logEndOffset, options.leaderEpochCheckpointWriter, {
      topic: this.topic,
      partition: this.partition,
      logger: this.#logger,
    });
    this.leaderEpochCache = epochs.cache;
    // An unreadable checkpoint was dropped: the epochs are rebuilt from the batches by a full recovery scan.
    const hadCleanShutdown = (options.hadCleanShutdown ?? false) && !epochs.rebuilt;
    if (epochs.rebuilt) this.recoveryPoint = 0;
    this.#producerState = new ProducerStateManager({
      dir: this.dir,
      name: `${this.topic}-${this.partition}`,
      producerIdExpirationMs: options.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS,
      logger: this.#logger,
    });
    this.#load(hadCleanShutdown, options.logStartOffset);
  }

  /** Idempotent producers' state of this partition (epochs, last sequences), kept in step with the log. */
  get producerState(): ProducerStateManager {
    return this.#producerState;
  }

  get logStartOffset(): number {
    return this.#logStartOffset;
  }
  /** LEO: the offset the next appended record gets. */
  /** Offsets below it are on every in-sync replica; retention never deletes at or above it. */
  get highWatermark(): number {
    return this.#highWatermark;
  }

  /**
   * Sets the high watermark, clamped into [log start, LEO] (Kafka's Log.updateHighWatermark): a follower takes the
   * leader's, and a restart restores the checkpointed one. It may move back (a follower of a new leader). Returns it.
   */
  updateHighWatermark(offset: number): number {
    this.#highWatermark = Math.min(Math.max(offset, this.#logStartOffset), this.#local.logEndOffset);
    return this.#highWatermark;
  }

  /** The leader's high watermark only moves forward, and never past the LEO. Returns true if it moved. */
  maybeIncrementHighWatermark(offset: number): boolean {
    if (offset > this.#local.logEndOffset) throw new RangeError(`high watermark ${offset} above the log end offset ${this.#local.logEndOffset} of ${this.topic}-${this.partition}`);
    if (offset <= this.#highWatermark) return false;
    this.#highWatermark = offset;
    return true;
  }

  /** How many times the log was truncated (truncateTo below the LEO, truncateFullyAndStartAt). */
  get truncationCount(): number {
    return this.#local.truncations;
  }

  get logEndOffset(): number {
    return this.#local.logEndOffset;
  }

  /** Offsets below it are fsynced; recovery after an unclean stop starts at its segment (recovery-point-offset-checkpoint). */
  get recoveryPoint(): number {
    return this.#local.recoveryPoint;
  }
  set recoveryPoint(offset: number) {
    this.#local.recoveryPoint = offset;
  }

  get config(): Readonly<LogConfig> {
    return this.#config;
  }

  updateConfig(config: LogConfig): void {
    validateLogConfig(config);
    this.#config = { ...config };
  }

  segmentBaseOffsets(): number[] {
    return this.#local.segments.baseOffsets();
  }

  sizeInBytes(): number {
    return this.#local.sizeInBytes();
  }

  /**
   * Leader append of producer batches: every batch is validated before anything is written, then offsets are
   * assigned from LEO by rewriting baseOffset and partitionLeaderEpoch (outside the CRC). The caller's buffer is
   * not modified unless `inPlace` is set (the broker passes its own request bytes and saves a copy per request).
   */
  appendAsLeader(records: Buffer, leaderEpoch: number, options: { inPlace?: boolean } = {}): LeaderAppendInfo {
    this.#checkOpen();
    if (records.length === 0) return { firstOffset: -1, lastOffset: -1, maxTimestamp: -1, logAppendTimeMs: -1, duplicate: false };
    const firstOffset = this.#local.logEndOffset;
    const plan = planLeaderAppend(records, leaderEpoch, firstOffset, this.#config, this.#time());
    // Idempotent producers: a retry of a batch already in the log is answered with its original offsets and
    // appends nothing; an epoch or sequence error refuses the whole append (Log.analyzeAndValidateProducerState).
    const { updates, duplicate } = this.#producerState.analyzeAppend(plan.assigned, 'client');
    if (duplicate) {
      return { firstOffset: batchFirstOffset(duplicate), lastOffset: duplicate.lastOffset, maxTimestamp: duplicate.timestamp, logAppendTimeMs: duplicate.timestamp, duplicate: true };
    }
    const out = plan.rebuilt ?? (options.inPlace ? records : Buffer.from(records));
    stampLeaderAppend(out, plan, leaderEpoch);
    this.#local.append(out, plan.assigned);
    this.#producerState.update(updates);
    this.#producerState.updateMapEndOffset(this.#local.logEndOffset);
    this.leaderEpochCache.assign(leaderEpoch, firstOffset);
    this.#local.maybeFlushAfterAppend();
    const { lastOffset, maxTimestamp, logAppendTimeMs } = plan;
    return { firstOffset, lastOffset, maxTimestamp, logAppendTimeMs, duplicate: false };
  }

  /**
   * Follower append: batches keep the leader's offsets and epochs; the first must be >= LEO, the rest contiguous.
   * A fetch answer may end with a partial batch, which is left out (Kafka's trimInvalidBytes): the replica fetcher
   * hands over the answer as it came, so each batch is scanned once, here.
   */
  appendAsFollower(fetched: Buffer): { firstOffset: number; lastOffset: number } {
    this.#checkOpen();
    const whole = checkFollowerAppend(fetched, this.#local.logEndOffset, this.#config);
    if (!whole) return { firstOffset: -1, lastOffset: -1 };
    const { records, batches } = whole;
    const first = batches[0]!;
    // Segments hold contiguous offsets, so a gap (the leader's log starts later) begins a new segment.
    if (first.baseOffset > this.#local.logEndOffset) this.#startSegmentAt(first.baseOffset);
    this.#local.append(records, batches);
    // The same producer state as the leader's, so a new leader still recognises retries (no checks here).
    this.#producerState.loadBatches(batches);
    this.#producerState.updateMapEndOffset(this.#local.logEndOffset);
    for (const b of batches) this.leaderEpochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
    this.#local.maybeFlushAfterAppend();
    return { firstOffset: first.baseOffset, lastOffset: batches.at(-1)!.lastOffset };
  }

  /**
   * Whole batches from the one containing `fetchOffset`, within one segment, up to `maxBytes` (at least one batch if
   * `minOneBatch`), none holding an offset >= `maxOffset`. `firstOffset` is the first returned batch's base offset.
   * With `pool` the bytes are read into its buffers (the caller gives them back once they are written out).
   */
  read(fetchOffset: number, maxBytes: number, maxOffset: number, minOneBatch: boolean, pool?: ReadBufferPool): { records: Buffer; firstOffset: number } {
    this.#checkOpen();
    const logEndOffset = this.#local.logEndOffset;
    if (fetchOffset < this.#logStartOffset || fetchOffset > logEndOffset) {
      throw new GregorError(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        `offset ${fetchOffset} is outside [${this.#logStartOffset}, ${logEndOffset}] of ${this.topic}-${this.partition}`,
      );
    }
    return readSegments(this.#local.segments, logEndOffset, fetchOffset, maxBytes, maxOffset, minOneBatch, pool);
  }

  /** The first batch whose maxTimestamp >= `timestampMs`, as its base offset (at least logStartOffset). */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | null {
    this.#checkOpen();
    return offsetForTimestamp(this.#local.segments, this.#logStartOffset, timestampMs);
  }

  /** ListOffsets v0 (Kafka's Log.legacyFetchOffsetsBefore): up to `maxNumOffsets` segment-boundary offsets, newest first. */
  legacyOffsetsBefore(timestamp: number, maxNumOffsets: number): number[] {
    this.#checkOpen();
    return legacyOffsetsBefore(this.#local.segments, { logStartOffset: this.#logStartOffset, logEndOffset: this.#local.logEndOffset }, this.#time(), timestamp, maxNumOffsets);
  }

  /** Drops every offset >= `offset` (a batch holding it goes whole). */
  truncateTo(offset: number): void {
    this.#checkOpen();
    if (offset < 0) throw new RangeError(`cannot truncate to negative offset ${offset}`);
    if (offset >= this.#local.logEndOffset) return;
    if (offset < this.#logStartOffset) {
      this.truncateFullyAndStartAt(offset);
      return;
    }
    const dropped = this.#local.truncateTo(offset);
    const logEndOffset = this.#local.logEndOffset;
    this.leaderEpochCache.truncateFromEnd(logEndOffset);
    this.#highWatermark = Math.min(this.#highWatermark, logEndOffset);
    // Producer state rolls back with the log: the last snapshot at or below the new end plus the log after it.
    this.#rebuildProducerState(logEndOffset, false);
    this.#logger.info({ topic: this.topic, partition: this.partition, offset, logEndOffset, bytesDropped: dropped }, 'truncated log');
  }

  /** Deletes everything and restarts the log empty at `offset` (a follower far behind the leader's log start). */
  truncateFullyAndStartAt(offset: number): void {
    this.#checkOpen();
    if (offset < 0) throw new RangeError(`cannot start a log at negative offset ${offset}`);
    this.#local.truncateFullyAndStartAt(offset);
    this.#logStartOffset = offset;
    this.#highWatermark = offset;
    this.leaderEpochCache.clear();
    this.#producerState.truncate();
    this.#producerState.updateMapEndOffset(offset);
  }

  /**
   * Raises the log start offset (Kafka's Log.maybeIncrementLogStartOffset): DeleteRecords on the leader, and a follower
   * following its leader's. Never above the high watermark (OFFSET_OUT_OF_RANGE). Segments then wholly below the new
   * start are deleted at once (Kafka waits for its next retention pass); the active segment always stays, so reads
   * below the start fail with OFFSET_OUT_OF_RANGE rather than reaching its older records. Returns true if it moved.
   */
  maybeIncrementLogStartOffset(newLogStartOffset: number): boolean {
    this.#checkOpen();
    if (newLogStartOffset > this.highWatermark) {
      throw new GregorError(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        `cannot raise the log start offset of ${this.topic}-${this.partition} to ${newLogStartOffset}: above the high watermark ${this.highWatermark}`,
      );
    }
    if (newLogStartOffset <= this.#logStartOffset) return false;
    this.#logStartOffset = newLogStartOffset;
    this.leaderEpochCache.truncateFromStart(newLogStartOffset);
    // Producers whose last batch is now below the start are forgotten, and older snapshots deleted (Kafka does the same).
    this.#producerState.truncateHead(newLogStartOffset);
    const deleted = this.#local.deleteSegmentsBelow(newLogStartOffset);
    this.#logger.info({ topic: this.topic, partition: this.partition, logStartOffset: newLogStartOffset, segmentsDeleted: deleted }, 'incremented log start offset');
    return true;
  }

  /**
   * Retention: deletes the oldest whole segments that are past `retentionMs`, over `retentionBytes`, or wholly
   * below logStartOffset, but only segments entirely below the high watermark; the log never ends up with no segment.
   */
  deleteOldSegments(nowMs: number): number {
    this.#checkOpen();
    const bounds = { logStartOffset: this.#logStartOffset, logEndOffset: this.#local.logEndOffset, highWatermark: this.highWatermark };
    const deletable = retentionDeletable(this.#local.segments.values(), this.#config, bounds, nowMs);
    if (deletable.length === 0) return 0;
    if (deletable.length === this.#local.segments.size) this.#local.roll(this.#local.logEndOffset);
    for (const segment of deletable) this.#local.remove(segment);
    this.#logStartOffset = Math.max(this.#logStartOffset, this.#local.segments.first()!.baseOffset);
    this.leaderEpochCache.truncateFromStart(this.#logStartOffset);
    this.#producerState.truncateHead(this.#logStartOffset);
    this.#logger.info(
      { topic: this.topic, partition: this.partition, segments: deletable.length, logStartOffset: this.#logStartOffset },
      'retention deleted segments',
    );
    return deletable.length;
  }

  /**
   * Log compaction, streamed: a fresh segment starting at `base`, written aside (in the log's `cleaned` dir) one
   * batch at a time as the cleaner produces them, so memory stays bounded; `replaceSegments` swaps it in.
   */
  openCleanedSegment(base: number): CleanedSegment {
    this.#checkOpen();
    return this.#local.openCleanedSegment(base);
  }

  /**
   * Log compaction: replaces the consecutive inactive segments starting at `baseOffsets[0]` with one segment
   * holding `cleaned` (batches covering exactly the same offsets: a segment from openCleanedSegment, or the bytes).
   * The new segment is renamed to `*.swap`, the old ones are deleted, then the swap files take their final names;
   * a crash at any step is completed by the next load (Kafka's swap protocol).
   */
  replaceSegments(baseOffsets: readonly number[], cleaned: CleanedSegment | Buffer): void {
    this.#checkOpen();
    this.#local.replaceSegments(baseOffsets, cleaned);
  }

  /** Messages appended since the last flush (Kafka's unflushedMessages: LEO - recovery point). */
  get unflushedMessages(): number {
    return this.#local.unflushedMessages;
  }

  /** flush.ms (Kafka's LogManager.flushDirtyLogs): fsyncs if there is unflushed data and the last flush is that old. */
  flushIfDue(nowMs: number): boolean {
    return !this.#closed && this.#local.flushIfDue(nowMs);
  }

  /** Fsyncs every segment holding unflushed offsets and moves the recovery point to LEO. */
  flush(): void {
    this.#checkOpen();
    this.#local.flush();
  }

  /** Producer ids idle for producer.id.expiration.ms are forgotten; returns how many. */
  removeExpiredProducers(nowMs: number): number {
    this.#checkOpen();
    return this.#producerState.removeExpiredProducers(nowMs);
  }

  /**
   * Closes the files (no flush: the log manager flushes before a clean shutdown) after a producer state snapshot
   * at LEO, so the next load needs no replay. Pending deletions finish now.
   */
  close(): void {
    if (this.#closed) return;
    try {
      this.#producerState.takeSnapshot(true);
    } catch (err) {
      this.#logger.error({ err, topic: this.topic, partition: this.partition }, 'writing the producer state snapshot at close failed');
    }
    this.#closed = true;
    this.leaderEpochCache.close();
    this.#local.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, `log ${this.topic}-${this.partition} is closed`);
  }

  /** A follower's next batch starts past LEO: a new segment there, and the log starts there if it is the only one. */
  #startSegmentAt(baseOffset: number): void {
    this.#local.startSegmentAt(baseOffset);
    this.#producerState.updateMapEndOffset(baseOffset);
    if (this.#local.segments.size === 1) {
      this.#logStartOffset = baseOffset;
      this.#producerState.truncateHead(baseOffset);
    }
  }

  #load(hadCleanShutdown: boolean, checkpointedLogStart: number | undefined): void {
    const onBatch = (b: BatchHeader) => this.leaderEpochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
    this.#local.load(hadCleanShutdown, checkpointedLogStart ?? 0, onBatch);
    const logEndOffset = this.#local.logEndOffset;
    const firstBase = this.#local.segments.first()!.baseOffset;
    this.#logStartOffset = Math.min(Math.max(checkpointedLogStart ?? firstBase, firstBase), logEndOffset);
    this.#highWatermark = this.#logStartOffset;
    this.leaderEpochCache.truncateFromEnd(logEndOffset);
    this.leaderEpochCache.truncateFromStart(this.#logStartOffset);
    this.#rebuildProducerState(logEndOffset, hadCleanShutdown);
  }

  /** Producer state brought to `lastOffset` from its snapshots and the log (see rebuildProducerState). */
  #rebuildProducerState(lastOffset: number, reloadFromCleanShutdown: boolean): void {
    rebuildProducerState(this.#producerState, this.#local.segments.values(), this.#logStartOffset, lastOffset, reloadFromCleanShutdown, this.#time());
  }
}
