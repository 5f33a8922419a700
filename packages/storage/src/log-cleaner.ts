import { type Logger } from '@gregor/common';
import {
  Attributes,
  CompressionType,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  decodeRecordSet,
  encodeRecordBatch,
  type CompressionCodec,
  type DecodedRecord,
  type DecodedRecordBatch,
} from '@gregor/protocol';
import type { PartitionLog } from './log.js';

/** Kafka's `delete.retention.ms` default: tombstones stay readable this long. */
export const DEFAULT_DELETE_RETENTION_MS = 86_400_000;
/** Records per rewritten batch. */
const RECORDS_PER_BATCH = 500;
// Small enough that decoding one chunk keeps the event loop busy for well under 50 ms (it yields after each).
const READ_CHUNK_BYTES = 512 * 1024;

export interface LogCleanerOptions {
  /** The logs to consider (the log manager's). */
  logs: () => PartitionLog[];
  /** `cleanup.policy` contains `compact`. */
  isCompacted: (topic: string) => boolean;
  /** `delete.retention.ms` of a topic. */
  deleteRetentionMs: (topic: string) => number;
  /** The most one batch of a topic may inflate to (default 50 MiB); a batch past it fails that log's cleaning. */
  maxDecompressedBytes?: (topic: string) => number;
  /** How often logs are checked (Kafka's `log.cleaner.backoff.ms` is 15000). */
  intervalMs: number;
  logger: Logger;
  time?: () => number;
}

export interface CleanResult {
  segments: number;
  recordsBefore: number;
  recordsAfter: number;
  bytesBefore: number;
  bytesAfter: number;
}

export interface Kept {
  offset: number;
  record: DecodedRecord;
  /** The codec of the batch the record came from: its rewritten batch keeps it (as Kafka's cleaner does). */
  compression: CompressionCodec;
}

/** An idempotent producer's identity in a rewritten batch: its id, epoch and the batch's first sequence. */
export interface CompactedProducer {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

/** What compaction keeps, in offset order: a record without producer id, or an idempotent producer's batch. */
export type KeptUnit =
  | { kind: 'record'; kept: Kept }
  | { kind: 'producer-batch'; baseOffset: number; lastOffset: number; producer: CompactedProducer; compression: CompressionCodec; kept: Kept[] };

/**
 * One batch spanning exactly [baseOffset, lastOffset] holding `kept` at their own offsets (gaps between
 * records are what compaction leaves; the span keeps segments contiguous for recovery), compressed with
 * `compression`; a batch left empty is uncompressed, as Kafka writes empty batches.
 */
export function encodeCompactedBatch(
  baseOffset: number,
  lastOffset: number,
  kept: readonly Omit<Kept, 'compression'>[],
  emptyTimestamp: number,
  compression: CompressionCodec = CompressionType.none,
  producer?: CompactedProducer,
): Buffer {
  return encodeRecordBatch({
    baseOffset,
    compression: kept.length > 0 ? compression : CompressionType.none,
    firstTimestamp: kept.length > 0 ? kept[0]!.record.timestamp : emptyTimestamp,
    ...(producer ?? {}),
    lastOffsetDelta: lastOffset - baseOffset,
    records: kept.map(({ offset, record }) => ({ key: record.key, value: record.value, headers: record.headers, timestamp: record.timestamp, offsetDelta: offset - baseOffset })),
  });
}

/**
 * Lays out the rewritten batches covering exactly [start, end), streamed: units arrive in offset order and each
 * batch is handed to `emit` as soon as it is complete, so only one batch's records are held at a time. An idempotent
 * producer's batch keeps its header as Kafka's cleaner does: same offset range, producer id, epoch and base sequence,
 * with only its kept records (so a replay of the cleaned log rebuilds the same producer state); one left empty stays
 * only if it is its producer's last in the range (`lastBatchOfProducer`: producer id → base offset of that batch).
 * Other kept records go into batches of up to RECORDS_PER_BATCH records of one codec that also cover the dropped
 * offsets around them (empty ones where nothing else is kept). `emptyTimestamp` stamps empty batches.
 */
export class CompactedBatchLayout {
  readonly #emptyTimestamp: number;
  readonly #lastBatchOfProducer: ReadonlyMap<number, number>;
  readonly #emit: (batch: Buffer) => void;
  #cursor: number;
  /** Kept records without producer id, not yet in a batch: one run of one codec, at most RECORDS_PER_BATCH. */
  #plain: Kept[] = [];

  constructor(start: number, emptyTimestamp: number, lastBatchOfProducer: ReadonlyMap<number, number>, emit: (batch: Buffer) => void) {
    this.#cursor = start;
    this.#emptyTimestamp = emptyTimestamp;
    this.#lastBatchOfProducer = lastBatchOfProducer;
    this.#emit = emit;
  }

  add(u: KeptUnit): void {
    if (u.kind === 'record') {
      const run = this.#plain;
      if (run.length > 0 && (run.length === RECORDS_PER_BATCH || run[0]!.compression !== u.kept.compression)) {
        // The run is complete: its batch ends at its last record (the next batch covers the gap after it).
        const batchEnd = run.at(-1)!.offset;
        this.#emit(encodeCompactedBatch(this.#cursor, batchEnd, run, this.#emptyTimestamp, run[0]!.compression));
        this.#cursor = batchEnd + 1;
        this.#plain = [];
      }
      this.#plain.push(u.kept);
      return;
    }
    if (u.kept.length === 0 && this.#lastBatchOfProducer.get(u.producer.producerId) !== u.baseOffset) return;
    this.#coverUpTo(u.baseOffset);
    this.#emit(encodeCompactedBatch(u.baseOffset, u.lastOffset, u.kept, this.#emptyTimestamp, u.compression, u.producer));
    this.#cursor = u.lastOffset + 1;
  }

  /** Everything up to `end` (exclusive) is laid out. */
  finish(end: number): void {
    this.#coverUpTo(end);
  }

  /** The pending run ends the batch that reaches `gapEnd`; with none, an empty batch covers the gap. */
  #coverUpTo(gapEnd: number): void {
    const run = this.#plain;
    if (run.length > 0) {
      this.#emit(encodeCompactedBatch(this.#cursor, gapEnd - 1, run, this.#emptyTimestamp, run[0]!.compression));
      this.#plain = [];
    } else if (this.#cursor < gapEnd) {
      this.#emit(encodeCompactedBatch(this.#cursor, gapEnd - 1, [], this.#emptyTimestamp));
    }
    this.#cursor = gapEnd;
  }
}

/**
 * Log compaction for topics with `cleanup.policy=compact` (Kafka's LogCleaner, simplified): the inactive
 * segments below the high watermark are rewritten keeping, for each key, only its latest record up to the
 * high watermark; tombstones (null values) go once they are older than `delete.retention.ms`. Records keep
 * their offsets. The active segment is never touched.
 */
export class LogCleaner {
  readonly #opts: LogCleanerOptions;
  readonly #time: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #stopped = false;

  constructor(options: LogCleanerOptions) {
    this.#opts = options;
    this.#time = options.time ?? Date.now;
  }

  startup(): void {
    this.#timer = setInterval(() => void this.cleanAll(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer; a pass in progress stops at its next yield, leaving the log as it was. */
  shutdown(): void {
    clearInterval(this.#timer);
    this.#stopped = true;
  }

  /** One pass over every compacted log, yielding to the event loop between chunks (it must not stall the broker). */
  async cleanAll(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (const log of this.#opts.logs()) {
        if (this.#stopped) return;
        if (!this.#opts.isCompacted(log.topic)) continue;
        try {
          await this.cleanAsync(log);
        } catch (err) {
          this.#opts.logger.error({ err, topic: log.topic, partition: log.partition }, 'log cleaning failed');
        }
      }
    } finally {
      this.#running = false;
    }
  }

  /** Reads [from, to) chunk by chunk (READ_CHUNK_BYTES), handing each record to `onRecord`; yields after each chunk. */
  *#readRange(log: PartitionLog, from: number, to: number, onRecord: (offset: number, r: DecodedRecord, batch: DecodedRecordBatch) => void): Generator<void, number> {
    const maxDecompressedBytes = this.#opts.maxDecompressedBytes?.(log.topic) ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
    let position = from;
    let bytes = 0;
    while (position < to) {
      const { records } = log.read(position, READ_CHUNK_BYTES, to, true);
      if (records.length === 0) break;
      bytes += records.length;
      for (const batch of decodeRecordSet(records, { maxDecompressedBytes })) {
        if ((batch.attributes & Attributes.control) === 0) for (const r of batch.records) if (r.offset >= from && r.offset < to) onRecord(r.offset, r, batch);
        position = batch.baseOffset + batch.lastOffsetDelta + 1;
      }
      yield;
    }
    return bytes;
  }

  /** Cleans one log now, in one go (tests, tools); null when there was nothing to clean. */
  clean(log: PartitionLog): CleanResult | null {
    const steps = this.#cleanSteps(log);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * Cleans one log, giving the event loop a turn after every chunk read, so requests and ZooKeeper heartbeats are
   * served meanwhile. Appends go on meanwhile (to the active segment, never cleaned); if the log was truncated or
   * lost a cleanable segment meanwhile, nothing is swapped in and the next pass starts over.
   */
  async cleanAsync(log: PartitionLog): Promise<CleanResult | null> {
    const steps = this.#cleanSteps(log);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (step.value) {
        try {
          await step.value;
        } catch (err) {
          steps.throw(err); // the pass ends there: its aside segment is removed, the error goes to the caller
        }
      } else {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (this.#stopped) {
        steps.return(null);
        return null;
      }
    }
  }

  *#cleanSteps(log: PartitionLog): Generator<Promise<void> | void, CleanResult | null> {
    const startedMs = Date.now(); // the pass's wall time goes into its log line
    const bases = log.segmentBaseOffsets();
    const hw = log.highWatermark;
    const truncations = log.truncationCount;
    let k = 0;
    while (k + 1 < bases.length && bases[k + 1]! <= hw) k++;
    if (k === 0) return null;
    const cleanable = bases.slice(0, k);
    const start = Math.max(bases[0]!, log.logStartOffset);
    const end = bases[k]!;
    // The latest offset of every key up to the high watermark; and, for the range cleaned, the last batch of each
    // idempotent producer and the newest timestamp (empty batches carry it), so the second pass can write as it goes.
    const latest = new Map<string, number>();
    const lastBatchOfProducer = new Map<number, number>();
    let maxTimestamp = -1;
    const keyOf = (r: DecodedRecord) => (r.key === null ? null : r.key.toString('base64'));
    yield* this.#readRange(log, start, hw, (offset, r, batch) => {
      const key = keyOf(r);
      if (key !== null) latest.set(key, offset);
      if (offset >= end) return;
      if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
      if (batch.producerId >= 0) lastBatchOfProducer.set(batch.producerId, batch.baseOffset);
    });
    const now = this.#time();
    const retention = this.#opts.deleteRetentionMs(log.topic);
    // The cleaned segment is written while it is read: batches are buffered up to a chunk, then appended.
    const cleaned = log.openCleanedSegment(bases[0]!);
    let swapped = false;
    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const writePending = () => {
        if (pending.length === 0) return;
        cleaned.append(pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
      };
      const layout = new CompactedBatchLayout(bases[0]!, maxTimestamp, lastBatchOfProducer, (batch) => {
        pending.push(batch);
        pendingBytes += batch.length;
        if (pendingBytes >= READ_CHUNK_BYTES) writePending();
      });
      let recordsAfter = 0;
      let recordsBefore = 0;
      // An idempotent producer's batch is laid out once all its records were seen (when the next unit starts).
      let openBatch = null as Extract<KeptUnit, { kind: 'producer-batch' }> | null;
      const bytesBefore = yield* this.#readRange(log, start, end, (offset, record, batch) => {
        const compression = batch.compression as CompressionCodec;
        recordsBefore++;
        // Idempotent producers' batches are kept as units (even emptied), so their sequences survive compaction.
        if (batch.producerId >= 0 && openBatch?.baseOffset !== batch.baseOffset) {
          if (openBatch) layout.add(openBatch);
          const producer = { producerId: batch.producerId, producerEpoch: batch.producerEpoch, baseSequence: batch.baseSequence };
          openBatch = { kind: 'producer-batch', baseOffset: batch.baseOffset, lastOffset: batch.baseOffset + batch.lastOffsetDelta, producer, compression, kept: [] };
        }
        const key = keyOf(record);
        if (key !== null && latest.get(key) !== offset) return;
        if (record.value === null && now - record.timestamp > retention) return;
        recordsAfter++;
        if (batch.producerId >= 0 && openBatch) {
          openBatch.kept.push({ offset, record, compression });
          return;
        }
        if (openBatch) {
          layout.add(openBatch);
          openBatch = null;
        }
        layout.add({ kind: 'record', kept: { offset, record, compression } });
      });
      if (recordsAfter === recordsBefore) return null;
      if (openBatch) layout.add(openBatch);
      layout.finish(end);
      writePending();
      // The cleaned bytes reach the disk off the event loop (hundreds of MB can take seconds to fsync).
      const flushed = cleaned.flushAsync();
      flushed.catch(() => {}); // clean() does not wait for it: finish() fsyncs again on the loop
      yield flushed;
      // What was read must still be the log: no truncation, the cleaned segments and the one after them still there.
      const now2 = log.segmentBaseOffsets();
      if (log.truncationCount !== truncations || !cleanable.every((b, i) => now2[i] === b) || now2[k] !== end) {
        this.#opts.logger.info({ topic: log.topic, partition: log.partition }, 'log changed while being cleaned; the next pass starts over');
        return null;
      }
      const bytesAfter = cleaned.size;
      log.replaceSegments(cleanable, cleaned);
      swapped = true;
      const result = { segments: cleanable.length, recordsBefore, recordsAfter, bytesBefore, bytesAfter };
      this.#opts.logger.info({ topic: log.topic, partition: log.partition, ...result, ms: Date.now() - startedMs }, 'log cleaned');
      return result;
    } finally {
      // Not swapped in (nothing to drop, the log changed, the cleaner stopped, or an error): the aside files go.
      if (!swapped) cleaned.abort();
    }
  }
}
