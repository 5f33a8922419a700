export { BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, CURRENT_MAGIC, BatchOffsets, CompressionType, Attributes, type CompressionCodec } from './batch-header.js';
export {
  readBatchHeader,
  validateBatch,
  computeBatchCrc,
  forEachBatch,
  setBaseOffset,
  setPartitionLeaderEpoch,
  TimestampType,
  type BatchHeader,
  type ForEachBatchOptions,
} from './batch-view.js';
export { compressionCodec, compressionName, DEFAULT_MAX_DECOMPRESSED_BYTES, type CompressionCodecImpl, type CodecOptions } from './compression.js';
export { encodeRecordBatch, type RecordBatchInput } from './encode-record-batch.js';
export { decodeRecordBatch, decodeRecordSet, decodeRecordSetPrefix, type DecodedRecordBatch, type DecodeRecordBatchOptions } from './decode-record-batch.js';
export type { RecordInput, RecordHeader, DecodedRecord } from './record.js';
export { walkRecords, RecordWalkError, type WalkedRecord } from './record-walk.js';
