import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { splitBatches, type BatchHeader } from '@gregor/protocol';
import { CorruptDataError, ErrorCode, GregorError, type Logger } from '@gregor/common';
import { LEADER_EPOCH_CHECKPOINT_FILE, LeaderEpochCache } from './leader-epoch-cache.js';
import { DEFAULT_LOG_CONFIG, validateLogConfig, type LogConfig } from './log-config.js';
import { recoverSegment } from './recovery.js';
import { LogSegment, storageError } from './segment.js';
import { SegmentMap } from './segment-map.js';
import { fsyncDir } from './checkpoint-file.js';
import type { ReadBufferPool } from './read-buffer-pool.js';
import { nodeIo, type SegmentIo } from './segment-io.js';
import { CLEANED_DIR, SWAP_FILE_SUFFIX, completeSwaps } from './segment-swap.js';
import { batchFirstOffset } from './producer-state.js';
import { DEFAULT_PRODUCER_ID_EXPIRATION_MS, ProducerStateManager } from './producer-state-manager.js';
import type { LeaderAppendInfo, PartitionLogOptions } from './log-options.js';
import { checkFollowerAppend, planLeaderAppend, stampLeaderAppend } from './log-append.js';
import { legacyOffsetsBefore, offsetForTimestamp, readSegments } from './log-read.js';
import { DelayedFileDeletes, retentionDeletable, segmentsBelowLogStart } from './log-retention.js';
import { loadSegments } from './log-load.js';
import { rebuildProducerState } from './producer-state-rebuild.js';

const MAX_RELATIVE_OFFSET = 0x7fffffff;
export type { LeaderAppendInfo, PartitionLogOptions } from './log-options.js';

/**
 * One partition's log (Kafka's `Log`): segments keyed by base offset, the last one active. All file calls are
 * synchronous, so appends are ordered by Node's single thread and a write error surfaces at its call site.
 */
export class PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  readonly leaderEpochCache: LeaderEpochCache;
  /** Moved only by the partition's replica state (Kafka's Partition) and restored from the checkpoint at load. */
  #highWatermark = 0;
  recoveryPoint: number;
  #config: LogConfig;
  #logger: Logger;
  #io: SegmentIo;
  #time: () => number;
  /** Sorted ascending by base offset; the last is the active segment. */
  #segments = new SegmentMap();
  #logStartOffset = 0;
  #logEndOffset = 0;
  readonly #deletes: DelayedFileDeletes;
  #closed = false;
  /** Truncations so far: a cleaner that yielded checks none happened before it swaps segments in. */
  #truncations = 0;
  /** When the log was last fsynced (flush.ms counts from it). */
  #lastFlushMs: number;
  readonly #producerState: ProducerStateManager;

  constructor(options: PartitionLogOptions) {
    validateLogConfig(options.config);
    this.topic = options.topic;
    this.partition = options.partition;
    this.dir = options.dir;
    this.#config = { ...options.config };
    this.#logger = options.logger;
    this.#io = options.io ?? nodeIo;
    this.#time = options.time ?? Date.now;
    this.recoveryPoint = options.recoveryPoint ?? 0;
    this.#lastFlushMs = this.#time();
    this.#deletes = new DelayedFileDeletes(this.#logger);
    mkdirSync(this.dir, { recursive: true });
    let hadCleanShutdown = options.hadCleanShutdown ?? false;
    let cache: LeaderEpochCache;
    try {
      cache = new LeaderEpochCache(this.dir, () => this.#logEndOffset, options.leaderEpochCheckpointWriter);
    } catch (err) {
      if (!(err instanceof CorruptDataError)) throw err;
      // The epochs are in the batches themselves: drop the file and rebuild it with a full recovery scan.
      this.#logger.warn({ topic: this.topic, partition: this.partition, err: err.message }, 'unreadable leader-epoch-checkpoint; rebuilding from the log');
      rmSync(join(this.dir, LEADER_EPOCH_CHECKPOINT_FILE), { force: true });
      cache = new LeaderEpochCache(this.dir, () => this.#logEndOffset, options.leaderEpochCheckpointWriter);
      hadCleanShutdown = false;
      this.recoveryPoint = 0;
    }
    this.leaderEpochCache = cache;
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
    this.#highWatermark = Math.min(Math.max(offset, this.#logStartOffset), this.#logEndOffset);
    return this.#highWatermark;
  }

  /** The leader's high watermark only moves forward, and never past the LEO. Returns true if it moved. */
  maybeIncrementHighWatermark(offset: number): boolean {
    if (offset > this.#logEndOffset) throw new RangeError(`high watermark ${offset} above the log end offset ${this.#logEndOffset} of ${this.topic}-${this.partition}`);
    if (offset <= this.#highWatermark) return false;
    this.#highWatermark = offset;
    return true;
  }

  /** How many times the log was truncated (truncateTo below the LEO, truncateFullyAndStartAt). */
  get truncationCount(): number {
    return this.#truncations;
  }

  get logEndOffset(): number {
    return this.#logEndOffset;
  }
  get config(): Readonly<LogConfig> {
    return this.#config;
  }

  updateConfig(config: LogConfig): void {
    validateLogConfig(config);
    this.#config = { ...config };
  }

  segmentBaseOffsets(): number[] {
    return this.#segments.baseOffsets();
  }

  sizeInBytes(): number {
    let total = 0;
    for (const s of this.#segments.values()) total += s.size;
    return total;
  }

  /**
   * Leader append of producer batches: every batch is validated before anything is written, then offsets are
   * assigned from LEO by rewriting baseOffset and partitionLeaderEpoch (outside the CRC). The caller's buffer is
   * not modified unless `inPlace` is set (the broker passes its own request bytes and saves a copy per request).
   */
  appendAsLeader(records: Buffer, leaderEpoch: number, options: { inPlace?: boolean } = {}): LeaderAppendInfo {
    this.#checkOpen();
    if (records.length === 0) return { firstOffset: -1, lastOffset: -1, maxTimestamp: -1, logAppendTimeMs: -1, duplicate: false };
    const firstOffset = this.#logEndOffset;
    const plan = planLeaderAppend(records, leaderEpoch, firstOffset, this.#config, this.#time());
    // Idempotent producers: a retry of a batch already in the log is answered with its original offsets and
    // appends nothing; an epoch or sequence error refuses the whole append (Log.analyzeAndValidateProducerState).
    const { updates, duplicate } = this.#producerState.analyzeAppend(plan.assigned, 'client');
    if (duplicate) {
      return { firstOffset: batchFirstOffset(duplicate), lastOffset: duplicate.lastOffset, maxTimestamp: duplicate.timestamp, logAppendTimeMs: duplicate.timestamp, duplicate: true };
    }
    const out = options.inPlace ? records : Buffer.from(records);
    stampLeaderAppend(out, plan, leaderEpoch);
    this.#appendToActive(out, plan.assigned);
    this.#producerState.update(updates);
    this.#producerState.updateMapEndOffset(this.#logEndOffset);
    this.leaderEpochCache.assign(leaderEpoch, firstOffset);
    this.#maybeFlushAfterAppend();
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
    const whole = checkFollowerAppend(fetched, this.#logEndOffset, this.#config);
    if (!whole) return { firstOffset: -1, lastOffset: -1 };
    const { records, batches } = whole;
    const first = batches[0]!;
    // Segments hold contiguous offsets, so a gap (the leader's log starts later) begins a new segment.
    if (first.baseOffset > this.#logEndOffset) this.#startSegmentAt(first.baseOffset);
    this.#appendToActive(records, batches);
    // The same producer state as the leader's, so a new leader still recognises retries (no checks here).
    this.#producerState.loadBatches(batches);
    this.#producerState.updateMapEndOffset(this.#logEndOffset);
    for (const b of batches) this.leaderEpochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
    this.#maybeFlushAfterAppend();
    return { firstOffset: first.baseOffset, lastOffset: batches.at(-1)!.lastOffset };
  }

  /**
   * Whole batches from the one containing `fetchOffset`, within one segment, up to `maxBytes` (at least one batch if
   * `minOneBatch`), none holding an offset >= `maxOffset`. `firstOffset` is the first returned batch's base offset.
   * With `pool` the bytes are read into its buffers (the caller gives them back once they are written out).
   */
  read(fetchOffset: number, maxBytes: number, maxOffset: number, minOneBatch: boolean, pool?: ReadBufferPool): { records: Buffer; firstOffset: number } {
    this.#checkOpen();
    if (fetchOffset < this.#logStartOffset || fetchOffset > this.#logEndOffset) {
      throw new GregorError(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        `offset ${fetchOffset} is outside [${this.#logStartOffset}, ${this.#logEndOffset}] of ${this.topic}-${this.partition}`,
      );
    }
    return readSegments(this.#segments, this.#logEndOffset, fetchOffset, maxBytes, maxOffset, minOneBatch, pool);
  }

  /** The first batch whose maxTimestamp >= `timestampMs`, as its base offset (at least logStartOffset). */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | null {
    this.#checkOpen();
    return offsetForTimestamp(this.#segments, this.#logStartOffset, timestampMs);
  }

  /** ListOffsets v0 (Kafka's Log.legacyFetchOffsetsBefore): up to `maxNumOffsets` segment-boundary offsets, newest first. */
  legacyOffsetsBefore(timestamp: number, maxNumOffsets: number): number[] {
    this.#checkOpen();
    return legacyOffsetsBefore(this.#segments, { logStartOffset: this.#logStartOffset, logEndOffset: this.#logEndOffset }, this.#time(), timestamp, maxNumOffsets);
  }

  /** Drops every offset >= `offset` (a batch holding it goes whole). */
  truncateTo(offset: number): void {
    this.#checkOpen();
    if (offset < 0) throw new RangeError(`cannot truncate to negative offset ${offset}`);
    if (offset >= this.#logEndOffset) return;
    this.#truncations++;
    if (offset < this.#logStartOffset) {
      this.truncateFullyAndStartAt(offset);
      return;
    }
    for (const segment of this.#segments.values()) {
      if (segment.baseOffset > offset && this.#segments.size > 1) this.#removeSegment(segment);
    }
    const active = this.#active();
    const dropped = active.truncateTo(offset);
    this.#logEndOffset = active.nextOffset;
    this.leaderEpochCache.truncateFromEnd(this.#logEndOffset);
    this.#highWatermark = Math.min(this.#highWatermark, this.#logEndOffset);
    this.recoveryPoint = Math.min(this.recoveryPoint, this.#logEndOffset);
    // Producer state rolls back with the log: the last snapshot at or below the new end plus the log after it.
    this.#rebuildProducerState(this.#logEndOffset, false);
    this.#logger.info({ topic: this.topic, partition: this.partition, offset, logEndOffset: this.#logEndOffset, bytesDropped: dropped }, 'truncated log');
  }

  /** Deletes everything and restarts the log empty at `offset` (a follower far behind the leader's log start). */
  truncateFullyAndStartAt(offset: number): void {
    this.#checkOpen();
    if (offset < 0) throw new RangeError(`cannot start a log at negative offset ${offset}`);
    this.#truncations++;
    for (const segment of this.#segments.values()) this.#removeSegment(segment);
    this.#addSegment(new LogSegment(this.dir, offset, this.#segmentOptions(), true, this.#time()));
    this.#logStartOffset = offset;
    this.#logEndOffset = offset;
    this.recoveryPoint = offset;
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
    const deleted = this.#deleteSegmentsBelowLogStart();
    this.#logger.info({ topic: this.topic, partition: this.partition, logStartOffset: newLogStartOffset, segmentsDeleted: deleted }, 'incremented log start offset');
    return true;
  }

  /** Kafka's deleteLogStartOffsetBreachedSegments: segments whose successor starts at or below the log start. */
  #deleteSegmentsBelowLogStart(): number {
    const below = segmentsBelowLogStart(this.#segments.values(), this.#logStartOffset);
    for (const segment of below) this.#removeSegment(segment);
    return below.length;
  }

  /**
   * Retention: deletes the oldest whole segments that are past `retentionMs`, over `retentionBytes`, or wholly
   * below logStartOffset, but only segments entirely below the high watermark; the log never ends up with no segment.
   */
  deleteOldSegments(nowMs: number): number {
    this.#checkOpen();
    const bounds = { logStartOffset: this.#logStartOffset, logEndOffset: this.#logEndOffset, highWatermark: this.highWatermark };
    const deletable = retentionDeletable(this.#segments.values(), this.#config, bounds, nowMs);
    if (deletable.length === 0) return 0;
    if (deletable.length === this.#segments.size) this.#roll(this.#logEndOffset);
    for (const segment of deletable) this.#removeSegment(segment);
    this.#logStartOffset = Math.max(this.#logStartOffset, this.#segments.first()!.baseOffset);
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
    const tmpDir = join(this.dir, CLEANED_DIR);
    rmSync(tmpDir, { recursive: true, force: true });
    mkdirSync(tmpDir);
    return new CleanedSegment(tmpDir, new LogSegment(tmpDir, base, this.#segmentOptions(), true, this.#time()));
  }

  /**
   * Log compaction: replaces the consecutive inactive segments starting at `baseOffsets[0]` with one segment
   * holding `cleaned` (batches covering exactly the same offsets: a segment from openCleanedSegment, or the bytes).
   * The new segment is renamed to `*.swap`, the old ones are deleted, then the swap files take their final names;
   * a crash at any step is completed by the next load (Kafka's swap protocol).
   */
  replaceSegments(baseOffsets: readonly number[], cleaned: CleanedSegment | Buffer): void {
    this.#checkOpen();
    const old = baseOffsets.map((b) => this.#segments.values().find((s) => s.baseOffset === b));
    const base = baseOffsets[0]!;
    if (old.length === 0 || old.some((s) => !s || s === this.#active())) {
      if (cleaned instanceof CleanedSegment) cleaned.abort();
      throw new Error('replaceSegments: only existing inactive segments can be replaced');
    }
    let segment: CleanedSegment;
    if (cleaned instanceof CleanedSegment) {
      segment = cleaned;
    } else {
      segment = this.openCleanedSegment(base);
      try {
        segment.append(cleaned);
      } catch (err) {
        segment.abort();
        throw err;
      }
    }
    if (segment.baseOffset !== base) {
      segment.abort();
      throw new Error(`replaceSegments: the cleaned segment starts at ${segment.baseOffset}, not ${base}`);
    }
    const tmpDir = segment.dir;
    for (const path of segment.finish()) renameSync(path, join(this.dir, path.slice(tmpDir.length + 1) + SWAP_FILE_SUFFIX));
    rmSync(tmpDir, { recursive: true, force: true });
    fsyncDir(this.dir);
    for (const s of old) this.#removeSegment(s!);
    completeSwaps(this.dir);
    fsyncDir(this.dir);
    const swapped = new LogSegment(this.dir, base, this.#segmentOptions(), false, this.#time());
    if (!swapped.loadIndexes()) recoverSegment(swapped, () => {});
    this.#addSegment(swapped);
  }

  /**
   * A recovery point for data fsynced up to `offset`: not past an epoch whose leader-epoch-checkpoint write has not
   * landed yet, so that after a crash recovery rescans its batches and finds it again.
   */
  #flushedUpTo(offset: number): number {
    return Math.min(offset, this.leaderEpochCache.firstUndurableOffset);
  }

  /** Messages appended since the last flush (Kafka's unflushedMessages: LEO - recovery point). */
  get unflushedMessages(): number {
    return this.#logEndOffset - this.recoveryPoint;
  }

  /** flush.messages (Kafka's Log.append): fsync before the append returns once enough messages are unflushed. */
  #maybeFlushAfterAppend(): void {
    const every = this.#config.flushMessages;
    if (every !== undefined && every < Number.MAX_SAFE_INTEGER && this.unflushedMessages >= every) this.flush();
  }

  /** flush.ms (Kafka's LogManager.flushDirtyLogs): fsyncs if there is unflushed data and the last flush is that old. */
  flushIfDue(nowMs: number): boolean {
    const ms = this.#config.flushMs;
    if (this.#closed || ms === undefined || ms >= Number.MAX_SAFE_INTEGER || this.unflushedMessages <= 0 || nowMs - this.#lastFlushMs < ms) return false;
    this.flush();
    return true;
  }

  /** Fsyncs every segment holding unflushed offsets and moves the recovery point to LEO. */
  flush(): void {
    this.#checkOpen();
    for (const segment of this.#segments.from(this.recoveryPoint)) segment.flush();
    // New segment files are durable only once their directory entries are.
    try {
      fsyncDir(this.dir);
    } catch (err) {
      throw storageError(`flushing directory ${this.dir} failed`, err);
    }
    this.recoveryPoint = this.#flushedUpTo(this.#logEndOffset);
    this.#lastFlushMs = this.#time();
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
    for (const segment of this.#segments.values()) segment.close();
    this.#deletes.finishAll();
  }

  #checkOpen(): void {
    if (this.#closed) throw new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, `log ${this.topic}-${this.partition} is closed`);
  }

  #segmentOptions() {
    return {
      indexIntervalBytes: this.#config.indexIntervalBytes,
      maxIndexBytes: this.#config.segmentIndexBytes ?? DEFAULT_LOG_CONFIG.segmentIndexBytes,
      io: this.#io,
    };
  }

  #active(): LogSegment {
    return this.#segments.last()!;
  }

  #addSegment(segment: LogSegment): void {
    const replaced = this.#segments.add(segment);
    if (replaced) throw new Error(`segment ${segment.baseOffset} of ${this.topic}-${this.partition} already exists`);
  }

  #appendToActive(records: Buffer, batches: readonly BatchHeader[]): void {
    try {
      this.#maybeRoll(records.length, batches.at(-1)!.lastOffset);
    } catch (err) {
      throw err instanceof GregorError ? err : storageError(`rolling a new segment of ${this.topic}-${this.partition} failed`, err);
    }
    this.#active().append(records, batches);
    this.#logEndOffset = batches.at(-1)!.lastOffset + 1;
  }

  #maybeRoll(bytes: number, lastOffset: number): void {
    const active = this.#active();
    if (active.isEmpty()) return;
    if (
      active.size + bytes > this.#config.segmentBytes ||
      this.#time() - active.createdMs > this.#config.segmentMs ||
      active.isIndexFull() ||
      lastOffset - active.baseOffset > MAX_RELATIVE_OFFSET
    ) {
      this.#roll(this.#logEndOffset);
    }
  }

  /**
   * New active segment at `baseOffset`. A producer state snapshot is taken at the new base, so a reload replays at
   * most the active segment. The older segments are flushed off the event loop (Kafka schedules a flush-log task):
   * fsyncing up to a segment's worth of data on the loop stalled every connection of the broker for as long.
   */
  #roll(baseOffset: number): void {
    const previous = this.#active();
    previous.onBecomeInactive();
    this.#addSegment(new LogSegment(this.dir, baseOffset, this.#segmentOptions(), true, this.#time()));
    this.#producerState.updateMapEndOffset(baseOffset);
    this.#producerState.takeSnapshot();
    this.#flushBelowAsync(baseOffset);
  }

  /**
   * fsyncs the segments holding offsets below `offset` on the thread pool, then moves the recovery point up to it,
   * unless the log was truncated (those offsets may hold other, unflushed data now) or closed meanwhile. A failure
   * has already taken the log dir offline (the io reports it); the recovery point then stays where it was.
   */
  #flushBelowAsync(offset: number): void {
    const segments = this.#segments.from(this.recoveryPoint).filter((s) => s.baseOffset < offset);
    if (segments.length === 0) return;
    const truncations = this.#truncations;
    Promise.all(segments.map((s) => s.flushAsync())).then(
      () => {
        if (this.#closed || this.#truncations !== truncations) return;
        this.recoveryPoint = Math.max(this.recoveryPoint, this.#flushedUpTo(Math.min(offset, this.#logEndOffset)));
      },
      (err: unknown) => {
        if (!this.#closed) this.#logger.error({ err, topic: this.topic, partition: this.partition, offset }, 'flushing rolled segments failed');
      },
    );
  }

  /** A follower's next batch starts past LEO: an empty active segment is replaced, a non-empty one rolled. */
  #startSegmentAt(baseOffset: number): void {
    const active = this.#active();
    if (active.isEmpty()) {
      this.#removeSegment(active);
      this.#addSegment(new LogSegment(this.dir, baseOffset, this.#segmentOptions(), true, this.#time()));
    } else {
      this.#roll(baseOffset);
    }
    this.#logEndOffset = baseOffset;
    this.#producerState.updateMapEndOffset(baseOffset);
    if (this.#segments.size === 1) {
      this.#logStartOffset = baseOffset;
      this.#producerState.truncateHead(baseOffset);
    }
  }

  /** Unlinks a segment from the log; its files become `*.deleted` and vanish after fileDeleteDelayMs. */
  #removeSegment(segment: LogSegment): void {
    this.#segments.remove(segment);
    this.#deletes.schedule(segment.renameToDeleted(), this.#config.fileDeleteDelayMs);
  }

  #load(hadCleanShutdown: boolean, checkpointedLogStart: number | undefined): void {
    const now = this.#time();
    const { segments, recovered } = loadSegments(this.dir, {
      topic: this.topic,
      partition: this.partition,
      logger: this.#logger,
      segmentOptions: this.#segmentOptions(),
      nowMs: now,
      recoveryPoint: this.recoveryPoint,
      hadCleanShutdown,
      onBatch: (b: BatchHeader) => this.leaderEpochCache.assign(b.partitionLeaderEpoch, b.baseOffset),
    });
    for (const s of segments) this.#segments.add(s);
    if (this.#segments.size === 0) {
      const start = checkpointedLogStart ?? 0;
      this.#segments.add(new LogSegment(this.dir, start, this.#segmentOptions(), true, now));
    }
    this.#logEndOffset = this.#active().nextOffset;
    const firstBase = this.#segments.first()!.baseOffset;
    this.#logStartOffset = Math.min(Math.max(checkpointedLogStart ?? firstBase, firstBase), this.#logEndOffset);
    this.recoveryPoint = this.#flushedUpTo(recovered ? this.#logEndOffset : Math.min(this.recoveryPoint, this.#logEndOffset));
    this.#highWatermark = this.#logStartOffset;
    this.leaderEpochCache.truncateFromEnd(this.#logEndOffset);
    this.leaderEpochCache.truncateFromStart(this.#logStartOffset);
    this.#rebuildProducerState(this.#logEndOffset, hadCleanShutdown);
  }

  /** Producer state brought to `lastOffset` from its snapshots and the log (see rebuildProducerState). */
  #rebuildProducerState(lastOffset: number, reloadFromCleanShutdown: boolean): void {
    rebuildProducerState(this.#producerState, this.#segments.values(), this.#logStartOffset, lastOffset, reloadFromCleanShutdown, this.#time());
  }
}

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
