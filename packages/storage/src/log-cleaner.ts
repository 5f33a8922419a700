import { type Logger } from '@gregor/common';
import { Attributes, CompressionType, DEFAULT_MAX_DECOMPRESSED_BYTES, decodeRecordSet, encodeRecordBatch, type CompressionCodec, type DecodedRecord } from '@gregor/protocol';
import type { PartitionLog } from './log.js';

/** Kafka's `delete.retention.ms` default: tombstones stay readable this long. */
export const DEFAULT_DELETE_RETENTION_MS = 86_400_000;
/** Records per rewritten batch. */
const RECORDS_PER_BATCH = 500;
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

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

interface Kept {
  offset: number;
  record: DecodedRecord;
  /** The codec of the batch the record came from: its rewritten batch keeps it (as Kafka's cleaner does). */
  compression: CompressionCodec;
}

/**
 * One batch spanning exactly [baseOffset, lastOffset] holding `kept` at their own offsets (gaps between
 * records are what compaction leaves; the span keeps segments contiguous for recovery), compressed with
 * `compression`; a batch left empty is uncompressed, as Kafka writes empty batches.
 */
export function encodeCompactedBatch(baseOffset: number, lastOffset: number, kept: readonly Omit<Kept, 'compression'>[], emptyTimestamp: number, compression: CompressionCodec = CompressionType.none): Buffer {
  return encodeRecordBatch({
    baseOffset,
    compression: kept.length > 0 ? compression : CompressionType.none,
    firstTimestamp: kept.length > 0 ? kept[0]!.record.timestamp : emptyTimestamp,
    lastOffsetDelta: lastOffset - baseOffset,
    records: kept.map(({ offset, record }) => ({ key: record.key, value: record.value, headers: record.headers, timestamp: record.timestamp, offsetDelta: offset - baseOffset })),
  });
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

  constructor(options: LogCleanerOptions) {
    this.#opts = options;
    this.#time = options.time ?? Date.now;
  }

  startup(): void {
    this.#timer = setInterval(() => this.cleanAll(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  shutdown(): void {
    clearInterval(this.#timer);
  }

  /** One pass over every compacted log. */
  cleanAll(): void {
    if (this.#running) return;
    this.#running = true;
    try {
      for (const log of this.#opts.logs()) {
        if (!this.#opts.isCompacted(log.topic)) continue;
        try {
          this.clean(log);
        } catch (err) {
          this.#opts.logger.error({ err, topic: log.topic, partition: log.partition }, 'log cleaning failed');
        }
      }
    } finally {
      this.#running = false;
    }
  }

  #readRange(log: PartitionLog, from: number, to: number, onRecord: (offset: number, r: DecodedRecord, compression: CompressionCodec) => void): number {
    const maxDecompressedBytes = this.#opts.maxDecompressedBytes?.(log.topic) ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
    let position = from;
    let bytes = 0;
    while (position < to) {
      const { records } = log.read(position, READ_CHUNK_BYTES, to, true);
      if (records.length === 0) break;
      bytes += records.length;
      for (const batch of decodeRecordSet(records, { maxDecompressedBytes })) {
        const compression = batch.compression as CompressionCodec;
        if ((batch.attributes & Attributes.control) === 0) for (const r of batch.records) if (r.offset >= from && r.offset < to) onRecord(r.offset, r, compression);
        position = batch.baseOffset + batch.lastOffsetDelta + 1;
      }
    }
    return bytes;
  }

  /** Cleans one log now; null when there was nothing to clean. */
  clean(log: PartitionLog): CleanResult | null {
    const bases = log.segmentBaseOffsets();
    const hw = log.highWatermark;
    let k = 0;
    while (k + 1 < bases.length && bases[k + 1]! <= hw) k++;
    if (k === 0) return null;
    const cleanable = bases.slice(0, k);
    const start = Math.max(bases[0]!, log.logStartOffset);
    const end = bases[k]!;
    // The latest offset of every key up to the high watermark.
    const latest = new Map<string, number>();
    const keyOf = (r: DecodedRecord) => (r.key === null ? null : r.key.toString('base64'));
    this.#readRange(log, start, hw, (offset, r) => {
      const key = keyOf(r);
      if (key !== null) latest.set(key, offset);
    });
    const now = this.#time();
    const retention = this.#opts.deleteRetentionMs(log.topic);
    const kept: Kept[] = [];
    let recordsBefore = 0;
    let maxTimestamp = -1;
    const bytesBefore = this.#readRange(log, start, end, (offset, record, compression) => {
      recordsBefore++;
      maxTimestamp = Math.max(maxTimestamp, record.timestamp);
      const key = keyOf(record);
      if (key !== null && latest.get(key) !== offset) return;
      if (record.value === null && now - record.timestamp > retention) return;
      kept.push({ offset, record, compression });
    });
    if (kept.length === recordsBefore) return null;
    // Runs of kept records from batches of one codec share a batch (at most RECORDS_PER_BATCH records);
    // each batch spans up to its last record, the last one to the end of the cleaned segments.
    const batches: Buffer[] = [];
    let batchStart = bases[0]!;
    for (let i = 0; i < kept.length; ) {
      let j = i + 1;
      while (j < kept.length && j - i < RECORDS_PER_BATCH && kept[j]!.compression === kept[i]!.compression) j++;
      const batchEnd = j === kept.length ? end - 1 : kept[j - 1]!.offset;
      batches.push(encodeCompactedBatch(batchStart, batchEnd, kept.slice(i, j), maxTimestamp, kept[i]!.compression));
      batchStart = batchEnd + 1;
      i = j;
    }
    if (kept.length === 0) batches.push(encodeCompactedBatch(batchStart, end - 1, [], maxTimestamp));
    const records = Buffer.concat(batches);
    log.replaceSegments(cleanable, records);
    const result = { segments: cleanable.length, recordsBefore, recordsAfter: kept.length, bytesBefore, bytesAfter: records.length };
    this.#opts.logger.info({ topic: log.topic, partition: log.partition, ...result }, 'log cleaned');
    return result;
  }
}
