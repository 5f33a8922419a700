import type { Logger } from '@gregor/common';
import { LogManager, type LogDirFailureChannel, type SegmentIo } from '@gregor/storage';
import type { BrokerConfig } from './config/broker-config.js';

/** The LogManager of log.dirs, with the broker's log.* defaults (a topic's overrides come with its LeaderAndIsr). */
export function createLogManager(cfg: BrokerConfig, clusterId: string, logDirFailures: LogDirFailureChannel, logger: Logger, io?: SegmentIo): LogManager {
  return new LogManager({
    logDirs: cfg.logDirs,
    defaultConfig: {
      segmentBytes: cfg.logSegmentBytes,
      indexIntervalBytes: cfg.logIndexIntervalBytes,
      retentionMs: cfg.logRetentionMs,
      retentionBytes: cfg.logRetentionBytes,
      segmentMs: cfg.logRollMs,
      maxMessageBytes: cfg.messageMaxBytes,
      fileDeleteDelayMs: cfg.logSegmentDeleteDelayMs,
      segmentIndexBytes: cfg.logIndexSizeMaxBytes,
      flushMessages: cfg.logFlushIntervalMessages,
      flushMs: cfg.logFlushIntervalMs,
    },
    logger,
    brokerId: cfg.brokerId,
    clusterId,
    retentionCheckIntervalMs: cfg.logRetentionCheckIntervalMs,
    flushCheckpointIntervalMs: cfg.logFlushOffsetCheckpointIntervalMs,
    flushCheckIntervalMs: cfg.logFlushCheckIntervalMs,
    producerIdExpirationMs: cfg.producerIdExpirationMs,
    producerIdExpirationCheckIntervalMs: cfg.producerIdExpirationCheckIntervalMs,
    logDirFailureChannel: logDirFailures,
    ...(io ? { io } : {}),
  });
}
