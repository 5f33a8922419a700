import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Attributes, BatchOffsets, DEFAULT_MAX_DECOMPRESSED_BYTES } from '@gregor/protocol';
import { CorruptDataError, ErrorCode, GregorError, type Logger } from '@gregor/common';
import { computeBatchCrc, splitBatches, type BatchHeader } from './batch-scan.js';
import {
  DELETED_FILE_SUFFIX,
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  offsetFromFileName,
  TIME_INDEX_FILE_SUFFIX,
} from './file-names.js';
import { LEADER_EPOCH_CHECKPOINT_FILE, LeaderEpochCache, type CheckpointWriter } from './leader-epoch-cache.js';
import { DEFAULT_LOG_CONFIG, validateLogConfig, type LogConfig } from './log-config.js';
import { recoverSegment, recoverSegments } from './recovery.js';
import { LogSegment, storageError } from './segment.js';
import { SegmentMap } from './segment-map.js';
import { fsyncDir } from './checkpoint-file.js';
import type { ReadBufferPool } from './read-buffer-pool.js';
import { nodeIo, type SegmentIo } from './segment-io.js';
import { CLEANED_DIR, SWAP_FILE_SUFFIX, completeSwaps } from './segment-swap.js';
import { batchFirstOffset, NO_PRODUCER_ID } from './producer-state.js';
import { DEFAULT_PRODUCER_ID_EXPIRATION_MS, ProducerStateManager } from './producer-state-manager.js';
import { validateProducerBatch, type RecordValidationConfig } from './log-validator.js';

const MAX_RELATIVE_OFFSET = 0x7fffffff;
/** Batch headers handed to the producer state at once when it is rebuilt from the log. */
const REPLAY_CHUNK = 1000;

/** LogAppendTime: set the timestamp-type bit and maxTimestamp, both inside the CRC, so the CRC is recomputed. */
function stampLogAppendTime(batch: Buffer, header: BatchHeader, nowMs: number): void {
  header.attributes |= Attributes.timestampTypeLogAppend;
  header.maxTimestamp = nowMs;
  batch.writeInt16BE(header.attributes, BatchOffsets.attributes);
  batch.writeBigInt64BE(BigInt(nowMs), BatchOffsets.maxTimestamp);
  batch.writeUInt32BE(computeBatchCrc(batch), BatchOffsets.crc);
}

/** CreateTime: the batch's max timestamp as its records hold it; inside the CRC, so the CRC is recomputed. */
function stampMaxTimestamp(batch: Buffer, maxTimestamp: number): void {
  batch.writeBigInt64BE(BigInt(maxTimestamp), BatchOffsets.maxTimestamp);
  batch.writeUInt32BE(computeBatchCrc(batch), BatchOffsets.crc);
}

export interface PartitionLogOptions {
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  logger: Logger;
  /** Offsets below this are known flushed; recovery after an unclean stop starts at its segment. Default 0. */
  recoveryPoint?: number;
  /** From `log-start-offset-checkpoint`; default the first segment's base offset. */
  logStartOffset?: number;
  /** True when the log dir had `.kafka_cleanshutdown`: skip the recovery scan. */
  hadCleanShutdown?: boolean;
  /** File-call seam (tests inject failures); default node:fs. */
  io?: SegmentIo;
  /** Wall clock, default Date.now. */
  time?: () => number;
  /** `producer.id.expiration.ms`: producer state idle this long is dropped. Default 1 day. */
  producerIdExpirationMs?: number;
  /** Writes `leader-epoch-checkpoint` off the event loop (LogManager passes writeCheckpointFileAsync); default on it. */
  leaderEpochCheckpointWriter?: CheckpointWriter | null;
}

export interface LeaderAppendInfo {
  firstOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  /** The leader's clock stamped into the batches for LogAppendTime topics, else -1 (a duplicate: its batch's timestamp). */
  logAppendTimeMs: number;
  /** A retried idempotent batch already in the log: nothing was appended, the offsets are the original ones. */
  duplicate: boolean;
}

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
  #pendingDeletes = new Map<NodeJS.Timeout, string[]>();
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

  #recordValidationConfig(): RecordValidationConfig {
    const c = this.#config;
    return {
      timestampType: c.messageTimestampType ?? 'CreateTime',
      timestampDifferenceMaxMs: c.messageTimestampDifferenceMaxMs ?? Number.MAX_SAFE_INTEGER,
      compacted: c.compact ?? false,
      maxDecompressedBytes: Math.max(c.maxMessageBytes, DEFAULT_MAX_DECOMPRESSED_BYTES),
    };
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
    const batches = splitBatches(records);
    for (const [i, b] of batches.entries()) {
      if (b.size > this.#config.maxMessageBytes) {
        throw new GregorError(ErrorCode.MESSAGE_TOO_LARGE, `batch of ${b.size} bytes exceeds max.message.bytes ${this.#config.maxMessageBytes}`);
      }
      if (b.recordCount <= 0 || b.lastOffsetDelta !== b.recordCount - 1) {
        throw new CorruptDataError(`batch ${i}: record count ${b.recordCount} does not match lastOffsetDelta ${b.lastOffsetDelta}`);
      }
      if (b.producerId !== NO_PRODUCER_ID && b.baseSequence < 0) {
        throw new GregorError(ErrorCode.INVALID_RECORD, `batch ${i}: producer id ${b.producerId} with invalid base sequence ${b.baseSequence}`);
      }
    }
    if (records.length > this.#config.segmentBytes) {
      throw new GregorError(ErrorCode.RECORD_LIST_TOO_LARGE, `${records.length} bytes of batches exceed segment.bytes ${this.#config.segmentBytes}`);
    }
    const nowMs = this.#time();
    const validation = this.#recordValidationConfig();
    // Every record is walked before anything is written (Kafka's LogValidator), so a header's claims
    // (record count, max timestamp) are what the records hold.
    const trueMaxTimestamps = batches.map((b, i) => validateProducerBatch(records, b, i, nowMs, validation).maxTimestamp);
    const logAppendTimeMs = validation.timestampType === 'LogAppendTime' ? nowMs : -1;
    const firstOffset = this.#logEndOffset;
    const recordTotal = batches.reduce((n, b) => n + b.recordCount, 0);
    // Compared as a difference: firstOffset + recordTotal itself may round above 2^53.
    if (recordTotal - 1 > Number.MAX_SAFE_INTEGER - firstOffset) {
      throw new GregorError(ErrorCode.INVALID_RECORD, `appending ${recordTotal} records at offset ${firstOffset} would pass 2^53 - 1, the largest offset gregor keeps exactly`);
    }
    let next = firstOffset;
    let maxTimestamp = -1;
    const assigned = batches.map((b, i) => {
      const a: BatchHeader = { ...b, baseOffset: next, lastOffset: next + b.lastOffsetDelta, partitionLeaderEpoch: leaderEpoch };
      if (logAppendTimeMs >= 0) a.maxTimestamp = logAppendTimeMs;
      else if (trueMaxTimestamps[i]! !== b.maxTimestamp && trueMaxTimestamps[i]! >= 0) a.maxTimestamp = trueMaxTimestamps[i]!;
      next = a.lastOffset + 1;
      maxTimestamp = Math.max(maxTimestamp, a.maxTimestamp);
      return a;
    });
    // Idempotent producers: a retry of a batch already in the log is answered with its original offsets and
    // appends nothing; an epoch or sequence error refuses the whole append (Log.analyzeAndValidateProducerState).
    const { updates, duplicate } = this.#producerState.analyzeAppend(assigned, 'client');
    if (duplicate) {
      return { firstOffset: batchFirstOffset(duplicate), lastOffset: duplicate.lastOffset, maxTimestamp: duplicate.timestamp, logAppendTimeMs: duplicate.timestamp, duplicate: true };
    }
    const out = options.inPlace ? records : Buffer.from(records);
    for (const a of assigned) {
      out.writeBigInt64BE(BigInt(a.baseOffset), a.position + BatchOffsets.baseOffset);
      out.writeInt32BE(leaderEpoch, a.position + BatchOffsets.partitionLeaderEpoch);
      if (logAppendTimeMs >= 0) stampLogAppendTime(out.subarray(a.position, a.position + a.size), a, logAppendTimeMs);
      // A producer's wrong max timestamp is corrected, as Kafka's setMaxTimestamp does (the time index and retention trust it).
      else if (a.maxTimestamp !== Number(out.readBigInt64BE(a.position + BatchOffsets.maxTimestamp))) stampMaxTimestamp(out.subarray(a.position, a.position + a.size), a.maxTimestamp);
    }
    this.#appendToActive(out, assigned);
    this.#producerState.update(updates);
    this.#producerState.updateMapEndOffset(this.#logEndOffset);
    this.leaderEpochCache.assign(leaderEpoch, firstOffset);
    this.#maybeFlushAfterAppend();
    return { firstOffset, lastOffset: next - 1, maxTimestamp, logAppendTimeMs, duplicate: false };
  }

  /** Follower append: batches keep the leader's offsets and epochs; the first must be >= LEO, the rest contiguous. */
  appendAsFollower(records: Buffer): { firstOffset: number; lastOffset: number } {
    this.#checkOpen();
    if (records.length === 0) return { firstOffset: -1, lastOffset: -1 };
    const batches = splitBatches(records);
    const first = batches[0]!;
    if (first.baseOffset < this.#logEndOffset) {
      throw new GregorError(ErrorCode.OFFSET_OUT_OF_RANGE, `follower append at ${first.baseOffset} is below the log end offset ${this.#logEndOffset}`);
    }
    for (let i = 1; i < batches.length; i++) {
      if (batches[i]!.baseOffset !== batches[i - 1]!.lastOffset + 1) {
        throw new CorruptDataError(`batch ${i} starts at ${batches[i]!.baseOffset}, expected ${batches[i - 1]!.lastOffset + 1}`);
      }
    }
    if (records.length > this.#config.segmentBytes) {
      throw new GregorError(ErrorCode.RECORD_LIST_TOO_LARGE, `${records.length} bytes of batches exceed segment.bytes ${this.#config.segmentBytes}`);
    }
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
    const empty = { records: Buffer.alloc(0), firstOffset: fetchOffset };
    if (fetchOffset === this.#logEndOffset || fetchOffset >= maxOffset) return empty;
    for (const segment of this.#segments.from(fetchOffset)) {
      const start = segment.translateOffset(fetchOffset);
      if (!start) continue;
      if (start.lastOffset >= maxOffset) return empty;
      const window = segment.readBytes(start.position, Math.max(0, maxBytes), pool);
      let length = 0;
      while (length + 12 <= window.length) {
        const size = window.readInt32BE(length + BatchOffsets.batchLength) + 12;
        if (length + size > window.length) break;
        const lastOffset = Number(window.readBigInt64BE(length)) + window.readInt32BE(length + BatchOffsets.lastOffsetDelta);
        if (lastOffset >= maxOffset) break;
        length += size;
      }
      // Copy when most of the window is unused, so a small response does not pin a large buffer (a pooled one
      // goes back to its pool after the write anyway).
      if (length > 0) return { records: length < window.length / 2 && !pool ? Buffer.from(window.subarray(0, length)) : window.subarray(0, length), firstOffset: start.baseOffset };
      pool?.release(window);
      if (!minOneBatch) return empty;
      return { records: segment.readBytes(start.position, start.size, pool), firstOffset: start.baseOffset };
    }
    return empty;
  }

  /** The first batch whose maxTimestamp >= `timestampMs`, as its base offset (at least logStartOffset). */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp: number } | null {
    this.#checkOpen();
    for (const segment of this.#segments.values()) {
      const batch = segment.findBatchByTimestamp(timestampMs);
      if (batch && batch.lastOffset >= this.#logStartOffset) {
        return { offset: Math.max(batch.baseOffset, this.#logStartOffset), timestamp: batch.maxTimestamp };
      }
    }
    return null;
  }

  /**
   * ListOffsets v0 (Kafka's Log.legacyFetchOffsetsBefore): the candidates are each segment's base offset
   * (at least the log start) stamped with the segment file's last-modified time, then the log end stamped
   * now if the active segment holds data. latest (-1) starts at the last candidate, earliest (-2) at the
   * first, any other timestamp at the newest candidate modified at or before it; up to `maxNumOffsets`
   * offsets are taken walking back from there, newest first.
   */
  legacyOffsetsBefore(timestamp: number, maxNumOffsets: number): number[] {
    this.#checkOpen();
    const segments = [...this.#segments.values()];
    const candidates = segments.map((s) => ({ offset: Math.max(s.baseOffset, this.#logStartOffset), modifiedMs: s.lastModified() }));
    if (segments[segments.length - 1]!.size > 0) candidates.push({ offset: this.#logEndOffset, modifiedMs: this.#time() });
    let start: number;
    if (timestamp === -1) start = candidates.length - 1;
    else if (timestamp === -2) start = 0;
    else {
      start = candidates.length - 1;
      while (start >= 0 && candidates[start]!.modifiedMs > timestamp) start--;
    }
    const out: number[] = [];
    for (let i = start; i >= 0 && out.length < maxNumOffsets; i--) out.push(candidates[i]!.offset);
    return out.sort((a, b) => b - a);
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
    const segments = this.#segments.values();
    let n = 0;
    for (let i = 0; i + 1 < segments.length && segments[i + 1]!.baseOffset <= this.#logStartOffset; i++) {
      this.#removeSegment(segments[i]!);
      n++;
    }
    return n;
  }

  /**
   * Retention: deletes the oldest whole segments that are past `retentionMs`, over `retentionBytes`, or wholly
   * below logStartOffset, but only segments entirely below the high watermark; the log never ends up with no segment.
   */
  deleteOldSegments(nowMs: number): number {
    this.#checkOpen();
    const { retentionMs, retentionBytes } = this.#config;
    let sizeOver = retentionBytes >= 0 ? this.sizeInBytes() - retentionBytes : -1;
    const segments = this.#segments.values();
    const deletable: LogSegment[] = [];
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      const next = segments[i + 1];
      const upperBound = next ? next.baseOffset : this.#logEndOffset;
      if (upperBound > this.highWatermark || (!next && segment.isEmpty())) break;
      const belowStart = next !== undefined && next.baseOffset <= this.#logStartOffset;
      const expired = retentionMs >= 0 && nowMs - segment.largestTimestamp() > retentionMs;
      const oversized = sizeOver >= 0 && sizeOver - segment.size >= 0;
      if (!belowStart && !expired && !oversized) break;
      if (sizeOver >= 0) sizeOver -= segment.size;
      deletable.push(segment);
    }
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
   * Log compaction: replaces the consecutive inactive segments starting at `baseOffsets[0]` with one segment
   * holding `records` (batches covering exactly the same offsets). The new segment is written aside, renamed
   * to `*.swap`, the old ones are deleted, then the swap files take their final names; a crash at any step is
   * completed by the next load (Kafka's swap protocol).
   */
  replaceSegments(baseOffsets: readonly number[], records: Buffer): void {
    this.#checkOpen();
    const old = baseOffsets.map((b) => this.#segments.values().find((s) => s.baseOffset === b));
    if (old.length === 0 || old.some((s) => !s || s === this.#active())) throw new Error('replaceSegments: only existing inactive segments can be replaced');
    const base = baseOffsets[0]!;
    const tmpDir = join(this.dir, CLEANED_DIR);
    rmSync(tmpDir, { recursive: true, force: true });
    mkdirSync(tmpDir);
    const cleaned = new LogSegment(tmpDir, base, this.#segmentOptions(), true, this.#time());
    try {
      cleaned.append(records, splitBatches(records));
      cleaned.onBecomeInactive();
      cleaned.flush();
    } finally {
      cleaned.close();
    }
    for (const path of [cleaned.logPath, cleaned.offsetIndex.path, cleaned.timeIndex.path]) {
      renameSync(path, join(this.dir, path.slice(tmpDir.length + 1) + SWAP_FILE_SUFFIX));
    }
    rmSync(tmpDir, { recursive: true, force: true });
    fsyncDir(this.dir);
    for (const segment of old) this.#removeSegment(segment!);
    completeSwaps(this.dir);
    fsyncDir(this.dir);
    const segment = new LogSegment(this.dir, base, this.#segmentOptions(), false, this.#time());
    if (!segment.loadIndexes()) recoverSegment(segment, () => {});
    this.#addSegment(segment);
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
    for (const [timer, paths] of this.#pendingDeletes) {
      clearTimeout(timer);
      for (const path of paths) rmSync(path, { force: true });
    }
    this.#pendingDeletes.clear();
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
   * New active segment at `baseOffset`; the old one is flushed, so the recovery point moves up to it. A producer
   * state snapshot is taken at the new base, so a reload replays at most the active segment.
   */
  #roll(baseOffset: number): void {
    const previous = this.#active();
    previous.onBecomeInactive();
    this.#addSegment(new LogSegment(this.dir, baseOffset, this.#segmentOptions(), true, this.#time()));
    this.#producerState.updateMapEndOffset(baseOffset);
    this.#producerState.takeSnapshot();
    for (const segment of this.#segments.from(this.recoveryPoint)) if (segment.baseOffset < baseOffset) segment.flush();
    this.recoveryPoint = Math.max(this.recoveryPoint, this.#flushedUpTo(Math.min(baseOffset, this.#logEndOffset)));
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
    const paths = segment.renameToDeleted();
    if (this.#config.fileDeleteDelayMs <= 0) {
      for (const path of paths) rmSync(path, { force: true });
      return;
    }
    const timer = setTimeout(() => {
      this.#pendingDeletes.delete(timer);
      // Off the event loop: unlinking a large segment can take long enough to be felt by every request.
      for (const path of paths) {
        rm(path, { force: true }).catch((err: unknown) => this.#logger.error({ err, path }, 'deleting a segment file failed'));
      }
    }, this.#config.fileDeleteDelayMs);
    timer.unref();
    this.#pendingDeletes.set(timer, paths);
  }

  #load(hadCleanShutdown: boolean, checkpointedLogStart: number | undefined): void {
    // An interrupted compaction: finish a committed swap, drop an uncommitted cleaned segment.
    if (existsSync(join(this.dir, CLEANED_DIR))) rmSync(join(this.dir, CLEANED_DIR), { recursive: true, force: true });
    completeSwaps(this.dir);
    const files = readdirSync(this.dir);
    const bases = new Set<number>();
    for (const name of files) {
      // Leftovers of deletions and checkpoint writes interrupted by a crash.
      if (name.endsWith(DELETED_FILE_SUFFIX) || name.endsWith('.tmp')) {
        rmSync(join(this.dir, name), { force: true });
        continue;
      }
      const base = offsetFromFileName(name);
      if (base !== null && name.endsWith(LOG_FILE_SUFFIX)) bases.add(base);
    }
    for (const name of files) {
      const base = offsetFromFileName(name);
      if (base !== null && (name.endsWith(INDEX_FILE_SUFFIX) || name.endsWith(TIME_INDEX_FILE_SUFFIX)) && !bases.has(base)) {
        rmSync(join(this.dir, name), { force: true });
      }
    }
    const sorted = [...bases].sort((a, b) => a - b);
    const now = this.#time();
    const segments = sorted.map((base) => new LogSegment(this.dir, base, this.#segmentOptions(), false, now));

    // Segments that may hold unflushed data: the one containing the recovery point and all after it.
    let firstUnflushed = segments.length;
    if (!hadCleanShutdown) {
      firstUnflushed = segments.findIndex((_s, i) => (segments[i + 1]?.baseOffset ?? Infinity) > this.recoveryPoint);
      if (firstUnflushed < 0) firstUnflushed = segments.length;
    }
    const assignEpoch = (b: BatchHeader) => this.leaderEpochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
    for (const segment of segments.slice(0, firstUnflushed)) {
      if (!segment.loadIndexes()) {
        this.#logger.info({ topic: this.topic, partition: this.partition, segment: segment.logPath }, 'rebuilding missing or corrupt index');
        const result = recoverSegment(segment, assignEpoch);
        if (result.truncatedBytes > 0) {
          this.#logger.warn(
            { topic: this.topic, partition: this.partition, offset: result.nextOffset, bytesDropped: result.truncatedBytes, problem: result.problem },
            'damaged batch in a flushed segment; log truncated',
          );
          firstUnflushed = segments.indexOf(segment) + 1;
          for (const later of segments.slice(firstUnflushed)) later.deleteFiles();
          segments.length = firstUnflushed;
          break;
        }
      }
    }
    const recovering = segments.slice(firstUnflushed);
    if (recovering.length > 0) {
      const keep = recoverSegments(recovering, { topic: this.topic, partition: this.partition, logger: this.#logger, onBatch: assignEpoch });
      for (const later of recovering.slice(keep)) later.deleteFiles();
      segments.length = firstUnflushed + keep;
      for (const s of segments.slice(firstUnflushed)) s.flush();
    }
    for (const s of segments) this.#segments.add(s);
    if (this.#segments.size === 0) {
      const start = checkpointedLogStart ?? 0;
      this.#segments.add(new LogSegment(this.dir, start, this.#segmentOptions(), true, now));
    }
    this.#logEndOffset = this.#active().nextOffset;
    const firstBase = this.#segments.first()!.baseOffset;
    this.#logStartOffset = Math.min(Math.max(checkpointedLogStart ?? firstBase, firstBase), this.#logEndOffset);
    this.recoveryPoint = this.#flushedUpTo(recovering.length > 0 ? this.#logEndOffset : Math.min(this.recoveryPoint, this.#logEndOffset));
    this.#highWatermark = this.#logStartOffset;
    this.leaderEpochCache.truncateFromEnd(this.#logEndOffset);
    this.leaderEpochCache.truncateFromStart(this.#logStartOffset);
    this.#rebuildProducerState(this.#logEndOffset, hadCleanShutdown);
  }

  /**
   * Brings producer state to `lastOffset` (Kafka 2.4's Log.rebuildProducerState): from the newest snapshot at or
   * below it, replaying the batches after it as replicated appends, then a snapshot at `lastOffset`. A log with no
   * snapshot after a clean shutdown (written before gregor kept producer state) is not scanned: empty snapshots go
   * at the last two segment bases and the end instead.
   */
  #rebuildProducerState(lastOffset: number, reloadFromCleanShutdown: boolean): void {
    const ps = this.#producerState;
    const bases = this.#segments.baseOffsets();
    const offsetsToSnapshot = new Set([...bases.slice(-2), lastOffset]);
    if (reloadFromCleanShutdown && ps.latestSnapshotOffset() === null) {
      for (const offset of [...offsetsToSnapshot].sort((a, b) => a - b)) {
        ps.updateMapEndOffset(offset);
        ps.takeSnapshot();
      }
      return;
    }
    // A log that had no producers before truncating has none after it: skip the reload.
    const isEmptyBeforeTruncation = ps.isEmpty && ps.mapEndOffset >= lastOffset;
    ps.truncateAndReload(this.#logStartOffset, lastOffset, this.#time());
    if (lastOffset > ps.mapEndOffset && !isEmptyBeforeTruncation) {
      const segments = this.#segments.values();
      for (let i = 0; i < segments.length; i++) {
        const segment = segments[i]!;
        const end = segments[i + 1]?.baseOffset ?? Infinity;
        if (end <= ps.mapEndOffset || segment.baseOffset >= lastOffset) continue;
        const start = Math.max(segment.baseOffset, ps.mapEndOffset, this.#logStartOffset);
        ps.updateMapEndOffset(start);
        if (offsetsToSnapshot.has(segment.baseOffset)) ps.takeSnapshot();
        this.#replayProducerBatches(segment, start, lastOffset);
      }
    }
    ps.updateMapEndOffset(lastOffset);
    ps.takeSnapshot();
  }

  /** Feeds the batches of `segment` from the one holding `from` up to (not including) `to` into producer state. */
  #replayProducerBatches(segment: LogSegment, from: number, to: number): void {
    const first = segment.translateOffset(from);
    if (!first) return;
    let chunk: BatchHeader[] = [];
    for (const h of segment.headersFrom(first.position)) {
      if (h.baseOffset >= to) break;
      chunk.push(h);
      if (chunk.length === REPLAY_CHUNK) {
        this.#producerState.loadBatches(chunk);
        chunk = [];
      }
    }
    if (chunk.length > 0) this.#producerState.loadBatches(chunk);
  }
}
