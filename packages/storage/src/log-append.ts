import { Attributes, BATCH_LOG_OVERHEAD, BatchOffsets, computeBatchCrc, decompressionCap, readInt64Number, splitBatches, type BatchHeader } from '@gregor/protocol';
import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import type { LogConfig } from './log-config.js';
import { recompressBatch, targetCompression } from './log-recompress.js';
import { validateProducerBatch, type RecordValidationConfig, type ValidatedBatch } from './log-validator.js';
import { NO_PRODUCER_ID } from './producer-state.js';

/**
 * What an append checks and rewrites before PartitionLog writes it (Kafka's Log.analyzeAndValidateRecords and
 * LogValidator): pure functions of the batches, the config and the log end offset; the log does the writing.
 */

/** A leader append planned: the batches with offsets assigned from `firstOffset`, nothing written yet. */
export interface LeaderAppendPlan {
  assigned: BatchHeader[];
  firstOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  /** The leader's clock for LogAppendTime topics, else -1. */
  logAppendTimeMs: number;
  /**
   * The batches rebuilt in the topic's `compression.type` (a new buffer the log owns; `assigned` positions are in
   * it), or null when every batch is stored in the codec it came in.
   */
  rebuilt: Buffer | null;
}

export function recordValidationConfig(c: LogConfig): RecordValidationConfig {
  return {
    timestampType: c.messageTimestampType ?? 'CreateTime',
    timestampDifferenceMaxMs: c.messageTimestampDifferenceMaxMs ?? Number.MAX_SAFE_INTEGER,
    compacted: c.compact ?? false,
    maxDecompressedBytes: decompressionCap(c.maxMessageBytes),
  };
}

function checkSegmentBytes(bytes: number, config: LogConfig): void {
  if (bytes > config.segmentBytes) {
    throw new GregorError(ErrorCode.RECORD_LIST_TOO_LARGE, `${bytes} bytes of batches exceed segment.bytes ${config.segmentBytes}`);
  }
}

/**
 * Validates a producer's batches (one scan of the headers, then every record walked, before anything is written)
 * and assigns offsets from `firstOffset` in the headers it returns; the bytes are not touched (stampLeaderAppend).
 * Batches whose codec is not the topic's `compression.type` are rebuilt into `rebuilt`.
 */
export function planLeaderAppend(records: Buffer, leaderEpoch: number, firstOffset: number, config: LogConfig, nowMs: number): LeaderAppendPlan {
  const batches = splitBatches(records);
  for (const [i, b] of batches.entries()) {
    if (b.sizeInBytes > config.maxMessageBytes) {
      throw new GregorError(ErrorCode.MESSAGE_TOO_LARGE, `batch of ${b.sizeInBytes} bytes exceeds max.message.bytes ${config.maxMessageBytes}`);
    }
    if (b.recordCount <= 0 || b.lastOffsetDelta !== b.recordCount - 1) {
      throw new CorruptDataError(`batch ${i}: record count ${b.recordCount} does not match lastOffsetDelta ${b.lastOffsetDelta}`);
    }
    if (b.producerId !== NO_PRODUCER_ID && b.baseSequence < 0) {
      throw new GregorError(ErrorCode.INVALID_RECORD, `batch ${i}: producer id ${b.producerId} with invalid base sequence ${b.baseSequence}`);
    }
  }
  checkSegmentBytes(records.length, config);
  const validation = recordValidationConfig(config);
  // Every record is walked before anything is written (Kafka's LogValidator), so a header's claims
  // (record count, max timestamp) are what the records hold.
  const validated = batches.map((b, i) => validateProducerBatch(records, b, i, nowMs, validation));
  const logAppendTimeMs = validation.timestampType === 'LogAppendTime' ? nowMs : -1;
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
    else if (validated[i]!.maxTimestamp !== b.maxTimestamp && validated[i]!.maxTimestamp >= 0) a.maxTimestamp = validated[i]!.maxTimestamp;
    next = a.lastOffset + 1;
    maxTimestamp = Math.max(maxTimestamp, a.maxTimestamp);
    return a;
  });
  const rebuilt = recompressForTopic(records, assigned, validated, config);
  return { assigned, firstOffset, lastOffset: next - 1, maxTimestamp, logAppendTimeMs, rebuilt };
}

/**
 * Topic `compression.type` other than `producer` (Kafka's LogValidator): a batch in another codec is rebuilt in the
 * topic's, one new batch per batch (so each keeps its own producer id and sequence), and `assigned` is moved onto
 * the new buffer. As Kafka's Log.append does after a rebuild, a batch that grew past max.message.bytes is refused.
 */
function recompressForTopic(records: Buffer, assigned: BatchHeader[], validated: ValidatedBatch[], config: LogConfig): Buffer | null {
  const targets = assigned.map((a) => targetCompression(config.compressionType, a.compression));
  if (targets.every((t, i) => t === assigned[i]!.compression)) return null;
  const parts = assigned.map((a, i) =>
    targets[i] === a.compression ? records.subarray(a.position, a.position + a.sizeInBytes) : recompressBatch(records, a, validated[i]!.records, targets[i]!, a.maxTimestamp),
  );
  let position = 0;
  for (const [i, a] of assigned.entries()) {
    const bytes = parts[i]!;
    if (bytes.length > config.maxMessageBytes) {
      throw new GregorError(ErrorCode.MESSAGE_TOO_LARGE, `batch of ${bytes.length} bytes in compression.type ${config.compressionType} exceeds max.message.bytes ${config.maxMessageBytes}`);
    }
    a.position = position;
    a.sizeInBytes = bytes.length;
    a.batchLength = bytes.length - BATCH_LOG_OVERHEAD;
    a.attributes = bytes.readInt16BE(BatchOffsets.attributes);
    a.compression = targets[i]!;
    a.firstTimestamp = readInt64Number(bytes, BatchOffsets.firstTimestamp);
    a.crc = bytes.readUInt32BE(BatchOffsets.crc);
    position += bytes.length;
  }
  checkSegmentBytes(position, config);
  return Buffer.concat(parts, position);
}

/**
 * Writes a plan into `out` (the request's bytes or a copy): baseOffset and partitionLeaderEpoch (outside the CRC),
 * and LogAppendTime or a corrected max timestamp (inside it, so the CRC is recomputed).
 */
export function stampLeaderAppend(out: Buffer, plan: LeaderAppendPlan, leaderEpoch: number): void {
  for (const a of plan.assigned) {
    out.writeBigInt64BE(BigInt(a.baseOffset), a.position + BatchOffsets.baseOffset);
    out.writeInt32BE(leaderEpoch, a.position + BatchOffsets.partitionLeaderEpoch);
    const batch = out.subarray(a.position, a.position + a.sizeInBytes);
    if (plan.logAppendTimeMs >= 0) stampLogAppendTime(batch, a, plan.logAppendTimeMs);
    // A producer's wrong max timestamp is corrected, as Kafka's setMaxTimestamp does (the time index and retention trust it).
    else if (a.maxTimestamp !== readInt64Number(batch, BatchOffsets.maxTimestamp)) stampMaxTimestamp(batch, a.maxTimestamp);
  }
}

/** LogAppendTime: set the timestamp-type bit and maxTimestamp, both inside the CRC, so the CRC is recomputed. */
function stampLogAppendTime(batch: Buffer, header: BatchHeader, nowMs: number): void {
  header.attributes |= Attributes.timestampTypeLogAppend;
  header.maxTimestamp = nowMs;
  batch.writeInt16BE(header.attributes, BatchOffsets.attributes);
  batch.writeBigInt64BE(BigInt(nowMs), BatchOffsets.maxTimestamp);
  batch.writeUInt32BE(computeBatchCrc(batch, 0, batch.length), BatchOffsets.crc);
}

/** CreateTime: the batch's max timestamp as its records hold it; inside the CRC, so the CRC is recomputed. */
function stampMaxTimestamp(batch: Buffer, maxTimestamp: number): void {
  batch.writeBigInt64BE(BigInt(maxTimestamp), BatchOffsets.maxTimestamp);
  batch.writeUInt32BE(computeBatchCrc(batch, 0, batch.length), BatchOffsets.crc);
}

/**
 * A follower's fetched batches, scanned once: whole batches only (a partial last one is left out, Kafka's
 * trimInvalidBytes), the first at or above the LEO, the rest contiguous. Null when no batch is whole.
 */
export function checkFollowerAppend(fetched: Buffer, logEndOffset: number, config: LogConfig): { records: Buffer; batches: BatchHeader[] } | null {
  const batches = fetched.length === 0 ? [] : splitBatches(fetched, { allowPartialTail: true });
  if (batches.length === 0) return null;
  const last = batches.at(-1)!;
  const records = fetched.subarray(0, last.position + last.sizeInBytes);
  const first = batches[0]!;
  if (first.baseOffset < logEndOffset) {
    throw new GregorError(ErrorCode.OFFSET_OUT_OF_RANGE, `follower append at ${first.baseOffset} is below the log end offset ${logEndOffset}`);
  }
  for (let i = 1; i < batches.length; i++) {
    if (batches[i]!.baseOffset !== batches[i - 1]!.lastOffset + 1) {
      throw new CorruptDataError(`batch ${i} starts at ${batches[i]!.baseOffset}, expected ${batches[i - 1]!.lastOffset + 1}`);
    }
  }
  checkSegmentBytes(records.length, config);
  return { records, batches };
}
