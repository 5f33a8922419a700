export {};
export {
  BATCH_HEADER_SIZE,
  BATCH_LOG_OVERHEAD,
  CURRENT_MAGIC,
  BatchOffsets,
  CompressionType,
  Attributes,
  type CompressionCodec,
} from './record-batch/batch-header.js';
