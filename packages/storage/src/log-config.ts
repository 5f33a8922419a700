import { ConfigError } from '@gregor/common';
import { TOPIC_COMPRESSION_TYPES, type TopicCompressionType } from './log-recompress.js';

/** Per-topic log settings (Kafka's topic-level names in camelCase). */
export interface LogConfig {
  /** `segment.bytes`: roll when the active segment would exceed this. Default 1 GiB. */
  segmentBytes: number;
  /** `index.interval.bytes`: bytes appended between sparse index entries. Default 4096. */
  indexIntervalBytes: number;
  /** `retention.ms`: delete segments whose largest timestamp is older; -1 = keep forever. Default 7 days. */
  retentionMs: number;
  /** `retention.bytes`: delete oldest segments while the log stays at or above this; -1 = off (default). */
  retentionBytes: number;
  /** `segment.ms`: roll a non-empty active segment this long after it was created. Default 7 days. */
  segmentMs: number;
  /** `max.message.bytes`: largest batch a producer may append. Default 1000012. */
  maxMessageBytes: number;
  /** `file.delete.delay.ms`: how long deleted segments linger as `*.deleted`. Default 60000. */
  fileDeleteDelayMs: number;
  /** `segment.index.bytes`: index size at which a segment rolls. Default 10 MiB. */
  segmentIndexBytes?: number;
  /** `message.timestamp.type`: LogAppendTime makes the leader stamp each batch with its clock. Default CreateTime. */
  messageTimestampType?: 'CreateTime' | 'LogAppendTime';
  /**
   * `flush.messages`: fsync the log once this many messages were appended since the last flush, before the append
   * returns (so before acks=1 is answered). Default never: durability comes from replication.
   */
  flushMessages?: number;
  /** `flush.ms`: fsync the log when it has unflushed messages and its last flush is this old (the log manager checks). Default never. */
  flushMs?: number;
  /** `message.timestamp.difference.max.ms`: CreateTime records further than this from the leader's clock are refused. Default off. */
  messageTimestampDifferenceMaxMs?: number;
  /** `cleanup.policy` includes compact: producers' records must carry keys. Default false. */
  compact?: boolean;
  /** `compression.type`: the codec the leader stores producers' batches in; `producer` keeps theirs. Default producer. */
  compressionType?: TopicCompressionType;
}

export const DEFAULT_LOG_CONFIG: Readonly<Required<LogConfig>> = Object.freeze({
  segmentBytes: 1073741824,
  indexIntervalBytes: 4096,
  retentionMs: 604800000,
  retentionBytes: -1,
  segmentMs: 604800000,
  maxMessageBytes: 1000012,
  fileDeleteDelayMs: 60000,
  segmentIndexBytes: 10485760,
  messageTimestampType: 'CreateTime',
  flushMessages: Number.MAX_SAFE_INTEGER,
  flushMs: Number.MAX_SAFE_INTEGER,
  messageTimestampDifferenceMaxMs: Number.MAX_SAFE_INTEGER,
  compact: false,
  compressionType: 'producer',
});

/** Throws ConfigError naming the first invalid setting. */
export function validateLogConfig(config: LogConfig): void {
  for (const key of ['segmentBytes', 'segmentMs'] as const) {
    const v = config[key];
    if (!Number.isFinite(v) || v <= 0) throw new ConfigError(`${key} must be a positive number, got ${v}`);
  }
  if (!(config.maxMessageBytes >= 0)) throw new ConfigError(`maxMessageBytes must be >= 0, got ${config.maxMessageBytes}`);
  const tsType = config.messageTimestampType;
  if (tsType !== undefined && tsType !== 'CreateTime' && tsType !== 'LogAppendTime') {
    throw new ConfigError(`messageTimestampType must be CreateTime or LogAppendTime, got ${String(tsType)}`);
  }
  if (config.compressionType !== undefined && !TOPIC_COMPRESSION_TYPES.includes(config.compressionType)) {
    throw new ConfigError(`compressionType must be one of ${TOPIC_COMPRESSION_TYPES.join(', ')}, got ${String(config.compressionType)}`);
  }
  const diff = config.messageTimestampDifferenceMaxMs;
  if (diff !== undefined && !(diff >= 0)) throw new ConfigError(`messageTimestampDifferenceMaxMs must be >= 0, got ${diff}`);
  if (!(config.indexIntervalBytes >= 0)) throw new ConfigError(`indexIntervalBytes must be >= 0, got ${config.indexIntervalBytes}`);
  if (!(config.fileDeleteDelayMs >= 0)) throw new ConfigError(`fileDeleteDelayMs must be >= 0, got ${config.fileDeleteDelayMs}`);
  if (!(config.retentionMs >= -1)) throw new ConfigError(`retentionMs must be >= -1, got ${config.retentionMs}`);
  if (!(config.retentionBytes >= -1)) throw new ConfigError(`retentionBytes must be >= -1, got ${config.retentionBytes}`);
  for (const key of ['flushMessages', 'flushMs'] as const) {
    const v = config[key];
    if (v !== undefined && !(v >= 0)) throw new ConfigError(`${key} must be >= 0, got ${v}`);
  }
  if (config.segmentIndexBytes !== undefined && !(config.segmentIndexBytes >= 12)) {
    throw new ConfigError(`segmentIndexBytes must be >= 12, got ${config.segmentIndexBytes}`);
  }
}
