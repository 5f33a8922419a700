import { ConfigError } from '@gregor/common';
import type { LogConfig, TopicCompressionType } from '@gregor/storage';
import type { BrokerConfig } from './broker-config.js';
import { atLeast, formatValue, oneOf, parseValue, type ConfigKey, type ConfigValue } from './config-def.js';

/**
 * Topic-level settings (Kafka's LogConfig names), stored as overrides in /config/topics/<t>.
 * `supported: false` names are accepted and stored, as Kafka would, but have no effect in gregor yet.
 * `synonym` is the broker setting that gives the topic default (LogConfig.TopicConfigSynonyms);
 * `default` is Kafka's own default, used when gregor's broker has no value for the synonym.
 */
type TopicKey = ConfigKey & { supported: boolean; synonym: string };
const LONG_MAX = '9223372036854775807';
const TOPIC_KEYS: TopicKey[] = [
  { name: 'cleanup.policy', type: 'list', default: ['delete'], synonym: 'log.cleanup.policy', doc: 'delete or compact', supported: true },
  { name: 'retention.ms', type: 'long', default: 604800000, synonym: 'log.retention.ms', doc: 'Retention time; -1 = forever.', validate: atLeast(-1) as never, supported: true },
  { name: 'retention.bytes', type: 'long', default: -1, synonym: 'log.retention.bytes', doc: 'Retention size per partition; -1 = none.', validate: atLeast(-1) as never, supported: true },
  { name: 'segment.bytes', type: 'int', default: 1073741824, synonym: 'log.segment.bytes', doc: 'Segment size.', validate: atLeast(14) as never, supported: true },
  { name: 'segment.ms', type: 'long', default: 604800000, synonym: 'log.roll.ms', doc: 'Segment age before a roll.', validate: atLeast(1) as never, supported: true },
  { name: 'segment.index.bytes', type: 'int', default: 10485760, synonym: 'log.index.size.max.bytes', doc: 'Offset index size.', validate: atLeast(12) as never, supported: true },
  { name: 'index.interval.bytes', type: 'int', default: 4096, synonym: 'log.index.interval.bytes', doc: 'Bytes between index entries.', validate: atLeast(0) as never, supported: true },
  { name: 'max.message.bytes', type: 'int', default: 1048588, synonym: 'message.max.bytes', doc: 'Largest record batch.', validate: atLeast(0) as never, supported: true },
  { name: 'min.insync.replicas', type: 'int', default: 1, synonym: 'min.insync.replicas', doc: 'Minimum ISR for acks=all.', validate: atLeast(1) as never, supported: true },
  { name: 'unclean.leader.election.enable', type: 'boolean', default: false, synonym: 'unclean.leader.election.enable', doc: 'Allow unclean elections.', supported: true },
  { name: 'file.delete.delay.ms', type: 'long', default: 60000, synonym: 'log.segment.delete.delay.ms', doc: 'Delay before deleting files.', validate: atLeast(0) as never, supported: true },
  { name: 'delete.retention.ms', type: 'long', default: 86400000, synonym: 'log.cleaner.delete.retention.ms', doc: 'How long tombstones are kept (compaction).', validate: atLeast(0) as never, supported: true },
  { name: 'min.compaction.lag.ms', type: 'long', default: 0, synonym: 'log.cleaner.min.compaction.lag.ms', doc: 'Compaction lag.', supported: false },
  { name: 'max.compaction.lag.ms', type: 'long', default: LONG_MAX, synonym: 'log.cleaner.max.compaction.lag.ms', doc: 'Compaction lag.', supported: false },
  { name: 'min.cleanable.dirty.ratio', type: 'double', default: 0.5, synonym: 'log.cleaner.min.cleanable.ratio', doc: 'Compaction trigger.', supported: false },
  { name: 'message.timestamp.type', type: 'string', default: 'CreateTime', synonym: 'log.message.timestamp.type', doc: 'CreateTime or LogAppendTime.', validate: oneOf('CreateTime', 'LogAppendTime') as never, supported: true },
  { name: 'message.timestamp.difference.max.ms', type: 'long', default: LONG_MAX, synonym: 'log.message.timestamp.difference.max.ms', doc: 'Allowed timestamp skew.', validate: atLeast(0) as never, supported: true },
  { name: 'compression.type', type: 'string', default: 'producer', synonym: 'compression.type', doc: 'producer: batches stored as sent; uncompressed, gzip, snappy, lz4, zstd: the leader recompresses batches in another codec.', validate: oneOf('producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd') as never, supported: true },
  { name: 'flush.messages', type: 'long', default: LONG_MAX, synonym: 'log.flush.interval.messages', doc: 'fsync the log once this many messages are unflushed, before the append is answered.', validate: atLeast(0) as never, supported: true },
  { name: 'flush.ms', type: 'long', default: LONG_MAX, synonym: 'log.flush.interval.ms', doc: 'fsync the log when it has unflushed messages and its last flush is this old.', validate: atLeast(0) as never, supported: true },
  { name: 'preallocate', type: 'boolean', default: false, synonym: 'log.preallocate', doc: 'Preallocate segment files.', supported: false },
  { name: 'message.format.version', type: 'string', default: '2.4-IV1', synonym: 'log.message.format.version', doc: 'Always v2 in gregor.', supported: false },
  { name: 'message.downconversion.enable', type: 'boolean', default: true, synonym: 'log.message.downconversion.enable', doc: 'false: Fetch v0-3 consumers get UNSUPPORTED_VERSION instead of down-converted records.', supported: true },
];

const BY_NAME = new Map(TOPIC_KEYS.map((k) => [k.name, k]));

export function topicConfigNames(): string[] {
  return TOPIC_KEYS.map((k) => k.name);
}

export function topicConfigDocs(): { name: string; type: string; doc: string; supported: boolean }[] {
  return TOPIC_KEYS.map((k) => ({ name: k.name, type: k.type, doc: k.doc, supported: k.supported }));
}

/** The definition of one topic setting; undefined for a name Kafka's LogConfig does not have. */
export function topicConfigKey(name: string): TopicKey | undefined {
  return BY_NAME.get(name);
}

/** Validates topic overrides (CreateTopics configs); throws ConfigError (INVALID_CONFIG) on the first problem. */
export function validateTopicConfig(overrides: Record<string, string>): void {
  for (const [name, raw] of Object.entries(overrides)) {
    if (!BY_NAME.has(name)) throw new ConfigError(`Unknown topic config name: ${name}`);
    const problem = topicConfigValueProblem(name, raw);
    if (problem) throw new ConfigError(problem);
  }
}

/** What is wrong with a value of a known topic setting, as a message naming it; undefined if it is valid. */
export function topicConfigValueProblem(name: string, raw: string): string | undefined {
  const key = BY_NAME.get(name)!;
  let value;
  try {
    value = parseValue(key, raw);
  } catch (err) {
    return (err as Error).message;
  }
  const problem = key.validate ? (key.validate as (v: unknown) => string | undefined)(value) : undefined;
  if (problem) return `Invalid value ${raw} for configuration ${name}: ${problem}`;
  if (name === 'cleanup.policy') {
    for (const p of value as string[]) {
      const bad = oneOf('delete', 'compact')(p);
      if (bad) return `Invalid value ${raw} for configuration cleanup.policy: ${bad}`;
    }
  }
  return undefined;
}

/**
 * A topic's value of `name` when it has no override (LogConfig built from the broker's current
 * settings): the broker's derived value where gregor has one (retention from ms/minutes/hours, roll
 * from ms/hours), else the broker setting of the synonym if set, else Kafka's default.
 */
export function topicConfigDefault(name: string, broker: BrokerConfig, brokerSetting: (name: string) => string | null): string | null {
  const derived = FROM_BROKER[name];
  if (derived) return formatValue(derived(broker));
  const key = BY_NAME.get(name);
  if (!key) return null;
  return brokerSetting(key.synonym) ?? formatValue(key.default);
}

const FROM_BROKER: Record<string, (b: BrokerConfig) => ConfigValue> = {
  'cleanup.policy': (b) => b.logCleanupPolicy,
  'retention.ms': (b) => b.logRetentionMs,
  'retention.bytes': (b) => b.logRetentionBytes,
  'segment.bytes': (b) => b.logSegmentBytes,
  'segment.ms': (b) => b.logRollMs,
  'segment.index.bytes': (b) => b.logIndexSizeMaxBytes,
  'index.interval.bytes': (b) => b.logIndexIntervalBytes,
  'max.message.bytes': (b) => b.messageMaxBytes,
  'min.insync.replicas': (b) => b.minInsyncReplicas,
  'unclean.leader.election.enable': (b) => b.uncleanLeaderElectionEnable,
  'file.delete.delay.ms': (b) => b.logSegmentDeleteDelayMs,
  'message.timestamp.type': (b) => b.logMessageTimestampType,
  'message.downconversion.enable': (b) => b.logMessageDownconversionEnable,
  'compression.type': (b) => b.compressionType,
};

/** The effective settings of one topic: its overrides over the broker's defaults. */
export interface EffectiveTopicConfig {
  log: Partial<LogConfig>;
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  maxMessageBytes: number;
  /** `message.downconversion.enable`: the topic's override, else the broker's log.message.downconversion.enable. */
  messageDownconversionEnable: boolean;
}

export function effectiveTopicConfig(broker: BrokerConfig, overrides: Record<string, string>): EffectiveTopicConfig {
  const num = (name: string): number | undefined => (overrides[name] !== undefined ? Number(overrides[name]) : undefined);
  const maxMessageBytes = num('max.message.bytes') ?? broker.messageMaxBytes;
  // A compact-only topic is never trimmed by time or size: the cleaner keeps the last value per key.
  const policy = (overrides['cleanup.policy'] ?? broker.logCleanupPolicy.join(',')).split(',').map((p) => p.trim());
  const compactOnly = !policy.includes('delete');
  return {
    log: {
      segmentBytes: num('segment.bytes') ?? broker.logSegmentBytes,
      indexIntervalBytes: num('index.interval.bytes') ?? broker.logIndexIntervalBytes,
      retentionMs: compactOnly ? -1 : (num('retention.ms') ?? broker.logRetentionMs),
      retentionBytes: compactOnly ? -1 : (num('retention.bytes') ?? broker.logRetentionBytes),
      segmentMs: num('segment.ms') ?? broker.logRollMs,
      maxMessageBytes,
      fileDeleteDelayMs: num('file.delete.delay.ms') ?? broker.logSegmentDeleteDelayMs,
      segmentIndexBytes: num('segment.index.bytes') ?? broker.logIndexSizeMaxBytes,
      flushMessages: num('flush.messages') ?? broker.logFlushIntervalMessages,
      flushMs: num('flush.ms') ?? broker.logFlushIntervalMs,
      messageTimestampType: (overrides['message.timestamp.type'] as 'CreateTime' | 'LogAppendTime' | undefined) ?? broker.logMessageTimestampType,
      // Long.MAX (Kafka's default) is beyond any clock difference: off.
      messageTimestampDifferenceMaxMs: Math.min(num('message.timestamp.difference.max.ms') ?? broker.logMessageTimestampDifferenceMaxMs, Number.MAX_SAFE_INTEGER),
      compact: policy.includes('compact'),
      compressionType: (overrides['compression.type'] as TopicCompressionType | undefined) ?? broker.compressionType,
    },
    minInsyncReplicas: num('min.insync.replicas') ?? broker.minInsyncReplicas,
    uncleanLeaderElectionEnable:
      overrides['unclean.leader.election.enable'] !== undefined ? overrides['unclean.leader.election.enable'] === 'true' : broker.uncleanLeaderElectionEnable,
    maxMessageBytes,
    messageDownconversionEnable:
      overrides['message.downconversion.enable'] !== undefined ? overrides['message.downconversion.enable'] === 'true' : broker.logMessageDownconversionEnable,
  };
}

/** A topic's `cleanup.policy` values: its override, else the broker's `log.cleanup.policy`. */
export function cleanupPolicy(overrides: Record<string, string>, brokerDefault: readonly string[]): string[] {
  const raw = overrides['cleanup.policy'];
  return raw !== undefined ? raw.split(',').map((p) => p.trim()) : [...brokerDefault];
}
