import { GregorError, type Logger } from '@gregor/common';
import type { BatchHeader } from '@gregor/protocol';
import { fsyncDir } from './checkpoint-file.js';
import { CleanedSegment, swapInCleanedSegment } from './cleaned-segment.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from './log-config.js';
import { loadSegments } from './log-load.js';
import { DelayedFileDeletes, segmentsBelowLogStart } from './log-retention.js';
import { LogSegment, storageError, type SegmentOptions } from './segment.js';
import type { SegmentIo } from './segment-io.js';
import { SegmentMap } from './segment-map.js';

const MAX_RELATIVE_OFFSET = 0x7fffffff;

export interface LocalLogOptions {
  dir: string;
  topic: string;
  partition: number;
  /** The log's current config (PartitionLog.updateConfig replaces it). */
  config: () => Readonly<LogConfig>;
  logger: Logger;
  io: SegmentIo;
  time: () => number;
  recoveryPoint: number;
  /** Caps a recovery point: PartitionLog keeps it below an epoch whose leader-epoch-checkpoint write has not landed. */
  durableUpTo: (offset: number) => number;
  /** A new segment was rolled at `baseOffset`, before the older ones are flushed (PartitionLog snapshots producer state there). */
  onRoll: (baseOffset: number) => void;
}

/**
 * A partition log's segments on local disk (Kafka's LocalLog): the segment list and its files, the log end offset,
 * the recovery point, rolling, flushing, truncating and swapping in cleaned segments. PartitionLog keeps what the
 * offsets mean on top of it: log start offset, high watermark, producer state and leader epochs.
 */
export class LocalLog {
  readonly dir: string;
  readonly topic: string;
  readonly partition: number;
  /** Sorted ascending by base offset; the last is the active segment. */
  readonly segments = new SegmentMap();
  /** LEO: the offset the next appended record gets. */
  logEndOffset = 0;
  /** Offsets below it are fsynced (and their epochs durable); recovery after an unclean stop starts at its segment. */
  recoveryPoint: number;
  /** When the log was last fsynced (flush.ms counts from it). */
  #lastFlushMs: number;
  readonly #config: () => Readonly<LogConfig>;
  readonly #logger: Logger;
  readonly #io: SegmentIo;
  readonly #time: () => number;
  readonly #durableUpTo: (offset: number) => number;
  readonly #onRoll: (baseOffset: number) => void;
  readonly #deletes: DelayedFileDeletes;
  /**
   * Truncations so far: a flush started at a roll moves the recovery point, and a cleaner that yielded swaps its
   * segments in, only if none happened meanwhile (and, for the flush, the log was not closed).
   */
  #truncations = 0;
  #closed = false;

  constructor(options: LocalLogOptions) {
    this.dir = options.dir;
    this.topic = options.topic;
    this.partition = options.partition;
    this.#config = options.config;
    this.#logger = options.logger;
    this.#io = options.io;
    this.#time = options.time;
    this.recoveryPoint = options.recoveryPoint;
    this.#durableUpTo = options.durableUpTo;
    this.#onRoll = options.onRoll;
    this.#lastFlushMs = this.#time();
    this.#deletes = new DelayedFileDeletes(this.#logger);
  }

  /**
   * Opens the segments on disk (see loadSegments), or one empty segment at `emptyLogStart` if there are none, and
   * sets the LEO and recovery point from them. `onBatch` sees every batch a recovery scan finds sound.
   */
  load(hadCleanShutdown: boolean, emptyLogStart: number, onBatch: (b: BatchHeader) => void): void {
    const now = this.#time();
    const { segments, recovered } = loadSegments(this.dir, {
      topic: this.topic,
      partition: this.partition,
      logger: this.#logger,
      segmentOptions: this.segmentOptions(),
      nowMs: now,
      recoveryPoint: this.recoveryPoint,
      hadCleanShutdown,
      onBatch,
    });
    for (const s of segments) this.segments.add(s);
    if (this.segments.size === 0) this.segments.add(new LogSegment(this.dir, emptyLogStart, this.segmentOptions(), true, now));
    this.logEndOffset = this.active().nextOffset;
    this.recoveryPoint = this.#durableUpTo(recovered ? this.logEndOffset : Math.min(this.recoveryPoint, this.logEndOffset));
  }

  segmentOptions(): SegmentOptions {
    return {
      indexIntervalBytes: this.#config().indexIntervalBytes,
      maxIndexBytes: this.#config().segmentIndexBytes ?? DEFAULT_LOG_CONFIG.segmentIndexBytes,
      io: this.#io,
    };
  }

  active(): LogSegment {
    return this.segments.last()!;
  }

  /** Adds a new empty segment at `baseOffset`. */
  createSegment(baseOffset: number): void {
    this.add(new LogSegment(this.dir, baseOffset, this.segmentOptions(), true, this.#time()));
  }

  add(segment: LogSegment): void {
    const replaced = this.segments.add(segment);
    if (replaced) throw new Error(`segment ${segment.baseOffset} of ${this.topic}-${this.partition} already exists`);
  }

  /** Unlinks a segment from the log; its files become `*.deleted` and vanish after fileDeleteDelayMs. */
  remove(segment: LogSegment): void {
    this.segments.remove(segment);
    this.#deletes.schedule(segment.renameToDeleted(), this.#config().fileDeleteDelayMs);
  }

  sizeInBytes(): number {
    let total = 0;
    for (const s of this.segments.values()) total += s.size;
    return total;
  }

  /** Writes whole batches to the active segment, rolling a new one first if it is due, and moves the LEO past them. */
  append(records: Buffer, batches: readonly BatchHeader[]): void {
    try {
      this.#maybeRoll(records.length, batches.at(-1)!.lastOffset);
    } catch (err) {
      throw err instanceof GregorError ? err : storageError(`rolling a new segment of ${this.topic}-${this.partition} failed`, err);
    }
    this.active().append(records, batches);
    this.logEndOffset = batches.at(-1)!.lastOffset + 1;
  }

  /** Kafka's shouldRoll: the active segment is non-empty and would pass segment.bytes, segment.ms, its index or 2^31 offsets. */
  #maybeRoll(bytes: number, lastOffset: number): void {
    const active = this.active();
    if (active.isEmpty()) return;
    const config = this.#config();
    if (
      active.size + bytes > config.segmentBytes ||
      this.#time() - active.createdMs > config.segmentMs ||
      active.isIndexFull() ||
      lastOffset - active.baseOffset > MAX_RELATIVE_OFFSET
    ) {
      this.roll(this.logEndOffset);
    }
  }

  /**
   * New active segment at `baseOffset`; onRoll runs first (a producer state snapshot at the new base, so a reload
   * replays at most the active segment). The older segments are flushed off the event loop (Kafka schedules a
   * flush-log task): fsyncing up to a segment's worth of data on the loop stalled every connection for as long.
   */
  roll(baseOffset: number): void {
    this.active().onBecomeInactive();
    this.createSegment(baseOffset);
    this.#onRoll(baseOffset);
    this.#flushBelowAsync(baseOffset);
  }

  /**
   * fsyncs the segments holding offsets below `offset` on the thread pool, then moves the recovery point up to it,
   * unless the log was truncated (those offsets may hold other, unflushed data now) or closed meanwhile. A failure
   * has already taken the log dir offline (the io reports it); the recovery point then stays where it was.
   */
  #flushBelowAsync(offset: number): void {
    const segments = this.segments.from(this.recoveryPoint).filter((s) => s.baseOffset < offset);
    if (segments.length === 0) return;
    const truncations = this.#truncations;
    Promise.all(segments.map((s) => s.flushAsync())).then(
      () => {
        if (this.#closed || this.#truncations !== truncations) return;
        this.recoveryPoint = Math.max(this.recoveryPoint, this.#durableUpTo(Math.min(offset, this.logEndOffset)));
      },
      (err: unknown) => {
        if (!this.#closed) this.#logger.error({ err, topic: this.topic, partition: this.partition, offset }, 'flushing rolled segments failed');
      },
    );
  }

  /** A follower's next batch starts past LEO: an empty active segment is replaced, a non-empty one rolled. */
  startSegmentAt(baseOffset: number): void {
    const active = this.active();
    if (active.isEmpty()) {
      this.remove(active);
      this.createSegment(baseOffset);
    } else {
      this.roll(baseOffset);
    }
    this.logEndOffset = baseOffset;
  }

  get truncations(): number {
    return this.#truncations;
  }

  /** Messages appended since the last flush (Kafka's unflushedMessages: LEO - recovery point). */
  get unflushedMessages(): number {
    return this.logEndOffset - this.recoveryPoint;
  }

  /** flush.messages (Kafka's Log.append): fsync before the append returns once enough messages are unflushed. */
  maybeFlushAfterAppend(): void {
    const every = this.#config().flushMessages;
    if (every !== undefined && every < Number.MAX_SAFE_INTEGER && this.unflushedMessages >= every) this.flush();
  }

  /** flush.ms (Kafka's LogManager.flushDirtyLogs): fsyncs if there is unflushed data and the last flush is that old. */
  flushIfDue(nowMs: number): boolean {
    const ms = this.#config().flushMs;
    if (ms === undefined || ms >= Number.MAX_SAFE_INTEGER || this.unflushedMessages <= 0 || nowMs - this.#lastFlushMs < ms) return false;
    this.flush();
    return true;
  }

  /** Fsyncs every segment holding unflushed offsets and moves the recovery point to LEO. */
  flush(): void {
    for (const segment of this.segments.from(this.recoveryPoint)) segment.flush();
    // New segment files are durable only once their directory entries are.
    try {
      fsyncDir(this.dir);
    } catch (err) {
      throw storageError(`flushing directory ${this.dir} failed`, err);
    }
    this.recoveryPoint = this.#durableUpTo(this.logEndOffset);
    this.#lastFlushMs = this.#time();
  }

  /** Drops every offset >= `offset` (at or above the first segment's base; a batch holding it goes whole). Returns the bytes dropped. */
  truncateTo(offset: number): number {
    this.#truncations++;
    for (const segment of this.segments.values()) {
      if (segment.baseOffset > offset && this.segments.size > 1) this.remove(segment);
    }
    const active = this.active();
    const dropped = active.truncateTo(offset);
    this.logEndOffset = active.nextOffset;
    this.recoveryPoint = Math.min(this.recoveryPoint, this.logEndOffset);
    return dropped;
  }

  /** Kafka's deleteLogStartOffsetBreachedSegments: segments whose successor starts at or below the log start. */
  deleteSegmentsBelow(logStartOffset: number): number {
    const below = segmentsBelowLogStart(this.segments.values(), logStartOffset);
    for (const segment of below) this.remove(segment);
    return below.length;
  }

  /** Deletes every segment and restarts the log empty at `offset`. */
  truncateFullyAndStartAt(offset: number): void {
    this.#truncations++;
    for (const segment of this.segments.values()) this.remove(segment);
    this.createSegment(offset);
    this.logEndOffset = offset;
    this.recoveryPoint = offset;
  }

  /** A fresh segment starting at `base`, written aside in the log's `cleaned` dir until replaceSegments swaps it in. */
  openCleanedSegment(base: number): CleanedSegment {
    return CleanedSegment.open(this.dir, base, this.segmentOptions(), this.#time());
  }

  /**
   * Replaces the consecutive inactive segments starting at `baseOffsets[0]` with one segment holding `cleaned`
   * (batches covering exactly the same offsets: a segment from openCleanedSegment, or the bytes), by Kafka's swap
   * protocol (swapInCleanedSegment).
   */
  replaceSegments(baseOffsets: readonly number[], cleaned: CleanedSegment | Buffer): void {
    const old = baseOffsets.map((b) => this.segments.values().find((s) => s.baseOffset === b));
    const base = baseOffsets[0]!;
    if (old.length === 0 || old.some((s) => !s || s === this.active())) {
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
    const removeOld = () => {
      for (const s of old) this.remove(s!);
    };
    this.add(swapInCleanedSegment(this.dir, segment, removeOld, this.segmentOptions(), this.#time()));
  }

  /** Closes the segment files; pending deletions finish now. */
  close(): void {
    this.#closed = true;
    for (const segment of this.segments.values()) segment.close();
    this.#deletes.finishAll();
  }
}
