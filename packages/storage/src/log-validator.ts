import { ErrorCode, GregorError } from '@gregor/common';
import { Attributes, BatchOffsets, compressionCodec, CompressionType, RecordWalkError, walkRecords, type BatchHeader } from '@gregor/protocol';

/** One refused record (KIP-467's record_errors entry): its position in the batch and why. */
export interface RecordError {
  batchIndex: number;
  message: string | null;
}

/**
 * A produce refused by record validation: the partition error code (INVALID_RECORD, INVALID_TIMESTAMP or
 * CORRUPT_MESSAGE) and, where Kafka names them, the records at fault. Nothing of the request is appended.
 */
export class RecordValidationError extends GregorError {
  constructor(
    code: number,
    message: string,
    readonly recordErrors: RecordError[] = [],
  ) {
    super(code, message);
    this.name = 'RecordValidationError';
  }
}

export interface RecordValidationConfig {
  /** `message.timestamp.type`: with LogAppendTime the records' own timestamps are not checked. */
  timestampType: 'CreateTime' | 'LogAppendTime';
  /** `message.timestamp.difference.max.ms`: the largest allowed |record timestamp - now| (CreateTime). */
  timestampDifferenceMaxMs: number;
  /** `cleanup.policy` includes compact: every record needs a key. */
  compacted: boolean;
  /** The most a compressed batch's records may inflate to; past it the batch is CORRUPT_MESSAGE. */
  maxDecompressedBytes: number;
}

/** What the leader learns from walking a batch: its true max timestamp (CreateTime), and its records inflated. */
export interface ValidatedBatch {
  maxTimestamp: number;
  /** The records section as walked: decompressed, or a view of the batch's own bytes when uncompressed. */
  records: Buffer;
}

/**
 * Kafka's LogValidator for a producer's v2 batch on the leader: walks every record (decompressing a
 * compressed batch under a cap) so the record count, the records' structure, their offset deltas
 * (0,1,2,... so no record claims an offset outside its batch) and their timestamps are what the header
 * claims; refuses control batches, the LogAppendTime bit and keyless records on compacted topics.
 * Dense offset deltas are checked for uncompressed batches too (Kafka checks them only when compressed):
 * the leader rewrites only the base offset, so a stray delta would give a record an offset outside its batch.
 * Throws RecordValidationError; never changes the batch.
 */
export function validateProducerBatch(records: Buffer, b: BatchHeader, batchNumber: number, nowMs: number, config: RecordValidationConfig): ValidatedBatch {
  const where = `batch ${batchNumber}`;
  if ((b.attributes & Attributes.control) !== 0) throw new RecordValidationError(ErrorCode.INVALID_RECORD, `${where}: clients may not send control batches`);
  if ((b.attributes & Attributes.timestampTypeLogAppend) !== 0) {
    throw new RecordValidationError(ErrorCode.INVALID_TIMESTAMP, `${where}: producers may not set the LogAppendTime timestamp type`, [
      { batchIndex: 0, message: 'Invalid timestamp type in message. Producer should not set timestamp type to LogAppendTime.' },
    ]);
  }
  let data = records;
  let start = b.position + BatchOffsets.records;
  let end = b.position + b.sizeInBytes;
  const compression = b.attributes & Attributes.compressionMask;
  if (compression !== CompressionType.none) {
    const codec = compressionCodec(compression);
    try {
      data = codec.decompress(records.subarray(start, end), config.maxDecompressedBytes);
    } catch (err) {
      if (err instanceof GregorError && err.code === ErrorCode.UNSUPPORTED_COMPRESSION_TYPE) throw err;
      throw new RecordValidationError(ErrorCode.CORRUPT_MESSAGE, `${where}: ${codec.name} records cannot be decompressed: ${(err as Error).message}`);
    }
    start = 0;
    end = data.length;
  }
  const checkTimestamps = config.timestampType === 'CreateTime' && config.timestampDifferenceMaxMs < Number.MAX_SAFE_INTEGER;
  let maxTimestamp = -1;
  try {
    walkRecords(data, start, end, b.recordCount, (r) => {
      if (r.offsetDelta !== r.index) {
        throw new RecordValidationError(ErrorCode.INVALID_RECORD, `${where}: record ${r.index} has offset delta ${r.offsetDelta}`, [
          { batchIndex: r.index, message: `Invalid offset delta ${r.offsetDelta} for record ${r.index} (offset deltas must be 0,1,2,...)` },
        ]);
      }
      if (config.compacted && r.keyIsNull) {
        throw new RecordValidationError(ErrorCode.INVALID_RECORD, `${where}: record ${r.index} has no key, which a compacted topic requires`, [
          { batchIndex: r.index, message: 'Compacted topic cannot accept message without key in topic partition.' },
        ]);
      }
      const timestamp = b.firstTimestamp + r.timestampDelta;
      if (timestamp > maxTimestamp) maxTimestamp = timestamp;
      if (checkTimestamps && b.firstTimestamp !== -1 && Math.abs(timestamp - nowMs) > config.timestampDifferenceMaxMs) {
        const message = `Timestamp ${timestamp} of message with offset delta ${r.offsetDelta} is out of range. The timestamp should be within [${nowMs - config.timestampDifferenceMaxMs}, ${nowMs + config.timestampDifferenceMaxMs}]`;
        throw new RecordValidationError(ErrorCode.INVALID_TIMESTAMP, `${where}: ${message}`, [{ batchIndex: r.index, message }]);
      }
    });
  } catch (err) {
    if (err instanceof RecordWalkError) throw new RecordValidationError(ErrorCode.INVALID_RECORD, `${where}: ${err.message}`);
    throw err;
  }
  return { maxTimestamp: b.firstTimestamp === -1 ? -1 : maxTimestamp, records: data.subarray(start, end) };
}
