export { PartitionLog, type PartitionLogOptions, type LeaderAppendInfo } from './log.js';
export { LogManager, type LogManagerOptions, CLEAN_SHUTDOWN_FILE, RECOVERY_POINT_CHECKPOINT_FILE, HIGH_WATERMARK_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE } from './log-manager.js';
export { DEFAULT_LOG_CONFIG, validateLogConfig, type LogConfig } from './log-config.js';
export { TOPIC_COMPRESSION_TYPES, type TopicCompressionType } from './log-recompress.js';
export {
  LeaderEpochCache,
  LEADER_EPOCH_CHECKPOINT_FILE,
  UNDEFINED_EPOCH,
  UNDEFINED_EPOCH_OFFSET,
  type EpochEntry,
} from './leader-epoch-cache.js';
export { OffsetCheckpointFile, readCheckpointFile, writeCheckpointFile, type TopicPartitionOffset } from './checkpoint-file.js';
export { readMetaProperties, writeMetaProperties, META_PROPERTIES_FILE, type BrokerMetadata } from './meta-properties.js';
export { partitionDirName, parseTopicPartitionDir, filenamePrefixFromOffset } from './file-names.js';
export { nodeIo, type SegmentIo } from './segment-io.js';
export { ReadBufferPool } from './read-buffer-pool.js';
export { LogDirFailureChannel, failureDetectingIo, isStorageFailure } from './log-dir-failure-channel.js';
export { LogCleaner, encodeCompactedBatch, DEFAULT_DELETE_RETENTION_MS, type LogCleanerOptions, type CleanResult } from './log-cleaner.js';
export { ProducerStateManager, DEFAULT_PRODUCER_ID_EXPIRATION_MS, batchLastSequence, type ProducerAppendAnalysis } from './producer-state-manager.js';
export { ProducerStateEntry, NUM_BATCHES_TO_RETAIN, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, type BatchMetadata } from './producer-state.js';
export { encodeSnapshot, decodeSnapshot, snapshotFileName, SNAPSHOT_FILE_SUFFIX } from './producer-snapshot.js';
export { RecordValidationError, validateProducerBatch, type RecordError, type RecordValidationConfig } from './log-validator.js';
