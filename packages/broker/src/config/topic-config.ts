import { ConfigError } from '@gregor/common';
import type { LogConfig } from '@gregor/storage';
import type { BrokerConfig } from './broker-config.js';
import { atLeast, oneOf, parseValue, type ConfigKey } from './config-def.js';

/**
 * Topic-level settings (Kafka's LogConfig names), stored as overrides in /config/topics/<t>.
 * `supported: false` names are accepted and stored, as Kafka would, but have no effect in gregor yet.
 */
const TOPIC_KEYS: (ConfigKey & { supported: boolean })[] = [
  { name: 'cleanup.policy', type: 'list', default: ['delete'], doc: 'delete or compact', supported: true },
  { name: 'retention.ms', type: 'long', default: null, doc: 'Retention time; -1 = forever.', validate: atLeast(-1) as never, supported: true },
  { name: 'retention.bytes', type: 'long', default: null, doc: 'Retention size per partition; -1 = none.', validate: atLeast(-1) as never, supported: true },
  { name: 'segment.bytes', type: 'int', default: null, doc: 'Segment size.', validate: atLeast(14) as never, supported: true },
  { name: 'segment.ms', type: 'long', default: null, doc: 'Segment age before a roll.', validate: atLeast(1) as never, supported: true },
  { name: 'segment.index.bytes', type: 'int', default: null, doc: 'Offset index size.', validate: atLeast(12) as never, supported: true },
  { name: 'index.interval.bytes', type: 'int', default: null, doc: 'Bytes between index entries.', validate: atLeast(0) as never, supported: true },
  { name: 'max.message.bytes', type: 'int', default: null, doc: 'Largest record batch.', validate: atLeast(0) as never, supported: true },
  { name: 'min.insync.replicas', type: 'int', default: null, doc: 'Minimum ISR for acks=all.', validate: atLeast(1) as never, supported: true },
  { name: 'unclean.leader.election.enable', type: 'boolean', default: null, doc: 'Allow unclean elections.', supported: true },
  { name: 'file.delete.delay.ms', type: 'long', default: null, doc: 'Delay before deleting files.', validate: atLeast(0) as never, supported: true },
  { name: 'delete.retention.ms', type: 'long', default: null, doc: 'How long tombstones are kept (compaction).', validate: atLeast(0) as never, supported: true },
  { name: 'min.compaction.lag.ms', type: 'long', default: null, doc: 'Compaction lag.', supported: false },
  { name: 'max.compaction.lag.ms', type: 'long', default: null, doc: 'Compaction lag.', supported: false },
  { name: 'min.cleanable.dirty.ratio', type: 'double', default: null, doc: 'Compaction trigger.', supported: false },
  { name: 'message.timestamp.type', type: 'string', default: null, doc: 'CreateTime or LogAppendTime.', validate: oneOf('CreateTime', 'LogAppendTime') as never, supported: false },
  { name: 'message.timestamp.difference.max.ms', type: 'long', default: null, doc: 'Allowed timestamp skew.', supported: false },
  { name: 'compression.type', type: 'string', default: null, doc: 'producer (stored as sent).', validate: oneOf('producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd') as never, supported: false },
  { name: 'flush.messages', type: 'long', default: null, doc: 'Flush interval in messages.', supported: false },
  { name: 'flush.ms', type: 'long', default: null, doc: 'Flush interval.', supported: false },
  { name: 'preallocate', type: 'boolean', default: null, doc: 'Preallocate segment files.', supported: false },
  { name: 'message.format.version', type: 'string', default: null, doc: 'Always v2 in gregor.', supported: false },
  { name: 'message.downconversion.enable', type: 'boolean', default: null, doc: 'No down-conversion in gregor.', supported: false },
];

const BY_NAME = new Map(TOPIC_KEYS.map((k) => [k.name, k]));

export function topicConfigNames(): string[] {
  return TOPIC_KEYS.map((k) => k.name);
}

export function topicConfigKey(name: string): ConfigKey | undefined {
  return BY_NAME.get(name);
}

export function topicConfigDocs(): { name: string; type: string; doc: string; supported: boolean }[] {
  return TOPIC_KEYS.map((k) => ({ name: k.name, type: k.type, doc: k.doc, supported: k.supported }));
}

/** Validates topic overrides (CreateTopics configs); throws ConfigError (INVALID_CONFIG) on the first problem. */
export function validateTopicConfig(overrides: Record<string, string>): void {
  for (const [name, raw] of Object.entries(overrides)) {
    const key = BY_NAME.get(name);
    if (!key) throw new ConfigError(`Unknown topic config name: ${name}`);
    const value = parseValue(key, raw);
    const problem = key.validate ? (key.validate as (v: unknown) => string | undefined)(value) : undefined;
    if (problem) throw new ConfigError(`Invalid value ${raw} for configuration ${name}: ${problem}`);
    if (name === 'cleanup.policy') {
      for (const p of value as string[]) {
        const bad = oneOf('delete', 'compact')(p);
        if (bad) throw new ConfigError(`Invalid value ${raw} for configuration cleanup.policy: ${bad}`);
      }
    }
  }
}

/** The effective settings of one topic: its overrides over the broker's defaults. */
export interface EffectiveTopicConfig {
  log: Partial<LogConfig>;
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  maxMessageBytes: number;
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
    },
    minInsyncReplicas: num('min.insync.replicas') ?? broker.minInsyncReplicas,
    uncleanLeaderElectionEnable:
      overrides['unclean.leader.election.enable'] !== undefined ? overrides['unclean.leader.election.enable'] === 'true' : broker.uncleanLeaderElectionEnable,
    maxMessageBytes,
  };
}
