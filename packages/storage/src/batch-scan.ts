import { crc32c } from '@node-rs/crc32';
import { BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, BatchOffsets, CURRENT_MAGIC } from '@gregor/protocol';
import { CorruptDataError } from '@gregor/common';

/**
 * Storage's view of RecordBatch v2: only header fields, never the records. Batches are stored and
 * served exactly as their bytes; offsets and the leader epoch live outside the CRC so they can be rewritten.
 */
export interface BatchHeader {
  /** Byte position of the batch (in the buffer or file it was read from). */
  position: number;
  /** Total bytes of the batch including the 12-byte offset+length prefix. */
  size: number;
  baseOffset: number;
  lastOffset: number;
  lastOffsetDelta: number;
  partitionLeaderEpoch: number;
  magic: number;
  attributes: number;
  firstTimestamp: number;
  maxTimestamp: number;
  /** -1 unless an idempotent or transactional producer wrote the batch. */
  producerId: number;
  producerEpoch: number;
  /** Sequence of the first record, -1 without a producer id. */
  baseSequence: number;
  recordCount: number;
}

/** Smallest possible batch: a header and no records. */
export const MIN_BATCH_SIZE = BATCH_HEADER_SIZE;

/** Total size of the batch at `pos` from its length field, or null if the prefix is not all there. */
export function batchSizeAt(buf: Buffer, pos: number): number | null {
  if (pos + BATCH_LOG_OVERHEAD > buf.length) return null;
  return buf.readInt32BE(pos + BatchOffsets.batchLength) + BATCH_LOG_OVERHEAD;
}

/** Reads the header at `pos`; the caller ensures BATCH_HEADER_SIZE bytes are present. */
export function readBatchHeader(buf: Buffer, pos: number, position = pos): BatchHeader {
  const baseOffset = Number(buf.readBigInt64BE(pos + BatchOffsets.baseOffset));
  const lastOffsetDelta = buf.readInt32BE(pos + BatchOffsets.lastOffsetDelta);
  return {
    position,
    size: buf.readInt32BE(pos + BatchOffsets.batchLength) + BATCH_LOG_OVERHEAD,
    baseOffset,
    lastOffset: baseOffset + lastOffsetDelta,
    lastOffsetDelta,
    partitionLeaderEpoch: buf.readInt32BE(pos + BatchOffsets.partitionLeaderEpoch),
    magic: buf.readInt8(pos + BatchOffsets.magic),
    attributes: buf.readInt16BE(pos + BatchOffsets.attributes),
    firstTimestamp: Number(buf.readBigInt64BE(pos + BatchOffsets.firstTimestamp)),
    maxTimestamp: Number(buf.readBigInt64BE(pos + BatchOffsets.maxTimestamp)),
    producerId: Number(buf.readBigInt64BE(pos + BatchOffsets.producerId)),
    producerEpoch: buf.readInt16BE(pos + BatchOffsets.producerEpoch),
    baseSequence: buf.readInt32BE(pos + BatchOffsets.baseSequence),
    recordCount: buf.readInt32BE(pos + BatchOffsets.recordCount),
  };
}

/** CRC-32C over attributes..end, as stored in the header. */
export function computeBatchCrc(batch: Buffer): number {
  return crc32c(batch.subarray(BatchOffsets.attributes)) >>> 0;
}

/**
 * Checks one whole batch (`batch` holds exactly its bytes): magic, CRC and offset/count sanity.
 * Returns a description of the first problem, or null if the batch is sound.
 */
export function batchProblem(batch: Buffer): string | null {
  if (batch.length < MIN_BATCH_SIZE) return `batch of ${batch.length} bytes is smaller than the ${MIN_BATCH_SIZE}-byte header`;
  const magic = batch.readInt8(BatchOffsets.magic);
  if (magic !== CURRENT_MAGIC) return `unsupported magic ${magic}`;
  const stored = batch.readUInt32BE(BatchOffsets.crc);
  const computed = computeBatchCrc(batch);
  if (stored !== computed) return `CRC mismatch: stored ${stored.toString(16)}, computed ${computed.toString(16)}`;
  const lastOffsetDelta = batch.readInt32BE(BatchOffsets.lastOffsetDelta);
  if (lastOffsetDelta < 0) return `negative lastOffsetDelta ${lastOffsetDelta}`;
  const recordCount = batch.readInt32BE(BatchOffsets.recordCount);
  if (recordCount < 0) return `negative record count ${recordCount}`;
  return null;
}

/**
 * Splits a buffer that must consist of whole v2 batches, validating each (see batchProblem).
 * Any trailing partial batch is corruption. Throws CorruptDataError naming the batch index.
 */
export function splitBatches(records: Buffer): BatchHeader[] {
  const batches: BatchHeader[] = [];
  let pos = 0;
  while (pos < records.length) {
    const size = batchSizeAt(records, pos);
    if (size === null || size < MIN_BATCH_SIZE || pos + size > records.length) {
      throw new CorruptDataError(`batch ${batches.length} at byte ${pos}: truncated or invalid length (${size ?? 'missing'})`);
    }
    const problem = batchProblem(records.subarray(pos, pos + size));
    if (problem !== null) throw new CorruptDataError(`batch ${batches.length} at byte ${pos}: ${problem}`);
    batches.push(readBatchHeader(records, pos));
    pos += size;
  }
  return batches;
}
