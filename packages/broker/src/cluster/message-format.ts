import { ErrorCode, GregorError } from '@gregor/common';
import { BatchOffsets, CURRENT_MAGIC, decompressionCap, downConvertRecordSet, LEGACY_LOG_OVERHEAD, LegacyOffsets, upConvertMessageSet } from '@gregor/protocol';

/**
 * What a Produce v0-2 partition appends: gregor's logs are message format v2 (message.format.version 2.x), so a
 * MessageSet of magic 0/1 is up-converted to one RecordBatch v2 (Kafka's LogValidator with target magic 2: offsets
 * assigned by the log, a compressed wrapper recompressed with its codec). Kafka does not check the magic for
 * these versions, so a client sending RecordBatch v2 in an old Produce is appended as it is. Null or no complete
 * message: an empty buffer.
 */
export function recordsForAppend(records: Buffer | null, maxMessageBytes: number): Buffer {
  if (records === null) return Buffer.alloc(0);
  if (records.length > BatchOffsets.magic && records.readInt8(BatchOffsets.magic) === CURRENT_MAGIC) return records;
  return upConvertMessageSet(records, { maxMessageBytes, maxDecompressedBytes: decompressionCap(maxMessageBytes) }).batch;
}

/** The message format a Fetch version understands: v0-1 magic 0, v2-3 magic 1, v4+ RecordBatch v2. */
export function fetchMagic(fetchVersion: number): 0 | 1 | 2 {
  return fetchVersion <= 1 ? 0 : fetchVersion <= 3 ? 1 : 2;
}

/** One partition of a Fetch answer, as read from the log, and what its request asked. */
export interface FetchedPartition {
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** Whole stored batches (Log.read), from the one holding fetchOffset; replaced by the converted set. */
  records: Buffer;
  fetchOffset: number;
  partitionMaxBytes: number;
}

/**
 * Down-converts a Fetch v0-3 answer in place, partition by partition in request order (Kafka's KafkaApis, done
 * eagerly with the exact size declared, which clients cannot tell from Kafka's lazy conversion). Each converted
 * set is cut at min(partition_max_bytes, what is left of max_bytes); from v3 the first partition with data keeps
 * at least its first message whole, as v3+ reads do. A cut may leave a partial message at the end, which
 * every client skips and which tells v0-2 clients to fetch with a larger size (Kafka's v0-2 reads are byte-bounded
 * the same way). A partition whose first batch is zstd answers UNSUPPORTED_COMPRESSION_TYPE, as Kafka does for
 * Fetch < v10.
 */
export function downConvertFetch(partitions: readonly FetchedPartition[], fetchVersion: number, maxBytes: number): void {
  const magic = fetchMagic(fetchVersion);
  if (magic === 2) return;
  let budget = maxBytes;
  let returned = false;
  for (const p of partitions) {
    if (p.errorCode !== ErrorCode.NONE || p.records.length === 0) continue;
    let converted: Buffer;
    try {
      converted = downConvertRecordSet(p.records, magic, p.fetchOffset, { maxDecompressedBytes: decompressionCap(p.partitionMaxBytes) });
    } catch (err) {
      if (!(err instanceof GregorError)) throw err;
      Object.assign(p, { errorCode: err.code, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, records: Buffer.alloc(0) });
      continue;
    }
    let limit = Math.max(0, Math.min(p.partitionMaxBytes, budget));
    if (fetchVersion >= 3 && !returned) limit = Math.max(limit, firstEntrySize(converted));
    p.records = converted.length > limit ? converted.subarray(0, limit) : converted;
    budget -= p.records.length;
    if (p.records.length > 0) returned = true;
  }
}

/** The size of the first entry of a v0/v1 message set (0 when it has none). */
export function firstEntrySize(set: Buffer): number {
  return set.length >= LEGACY_LOG_OVERHEAD ? LEGACY_LOG_OVERHEAD + set.readInt32BE(LegacyOffsets.size) : 0;
}
