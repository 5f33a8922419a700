export { BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, CURRENT_MAGIC, BatchOffsets, CompressionType, Attributes, type CompressionCodec } from './batch-header.js';
export {
  readBatchHeader,
  batchSizeAt,
  batchLastOffsetAt,
  validateBatch,
  batchCountsProblem,
  splitBatches,
  wholeBatchesLength,
  computeBatchCrc,
  forEachBatch,
  setBaseOffset,
  setPartitionLeaderEpoch,
  TimestampType,
  type BatchHeader,
  type ForEachBatchOptions,
  type SplitBatchesOptions,
} from './batch-view.js';
export { compressionCodec, compressionName, DEFAULT_MAX_DECOMPRESSED_BYTES, decompressionCap, type CompressionCodecImpl, type CodecOptions } from './compression.js';
export { encodeRecordBatch, type RecordBatchInput } from './encode-record-batch.js';
export {
  decodeRecordBatch,
  decodeRecordBatchWith,
  decodeRecordSet,
  decodeRecordSetPrefix,
  decodeRecordSetPrefixWith,
  openRecordBatch,
  type DecodedRecordBatch,
  type DecodeRecordBatchOptions,
  type RecordFactory,
} from './decode-record-batch.js';
export { RecordSetCursor } from './record-set-cursor.js';
export type { RecordInput, RecordHeader, DecodedRecord } from './record.js';
export {
  LEGACY_LOG_OVERHEAD,
  LegacyOffsets,
  legacyRecordOverhead,
  readLegacyEntry,
  writeLegacyEntry,
  legacyEntrySize,
  computeLegacyCrc,
  legacyCrcMatches,
  type LegacyEntry,
  type LegacyMessageInput,
} from './legacy-record.js';
export {
  forEachLegacyEntry,
  readInnerEntries,
  decodeLegacyEntry,
  decodeMessageSet,
  encodeMessageSet,
  type ForEachLegacyEntryOptions,
  type DecodeMessageSetOptions,
  type LegacyRecord,
  type MessageSetInput,
} from './message-set.js';
export { downConvertRecordSet, type DownConvertOptions } from './down-convert.js';
export { upConvertMessageSet, type UpConvertOptions, type UpConverted } from './up-convert.js';
export { RecordWalker, walkRecords, walkedRecordHeaders, RecordWalkError, type WalkedRecord } from './record-walk.js';
