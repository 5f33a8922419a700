import { parseValue } from './config-def.js';
import type { BrokerConfig } from './broker-config.js';
import { topicConfigKey, topicConfigNames } from './topic-config.js';

/** DescribeConfigs' ConfigSource ids (Kafka's DescribeConfigsResponse.ConfigSource). */
export const ConfigSource = { TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;

/** One effective topic setting, as a CreateTopics v5+ response echoes it (KIP-525). */
export interface TopicConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
}

const LONG_MAX = '9223372036854775807';

/**
 * Each topic setting's broker synonym (Kafka's LogConfig.TopicConfigSynonyms) and the broker's
 * effective value for it: gregor's parsed setting where gregor has one, else what the broker's
 * properties say, else Kafka 2.4's default.
 */
const BROKER_SYNONYMS: Record<string, { broker: string; value: (c: BrokerConfig) => string }> = {
  'cleanup.policy': { broker: 'log.cleanup.policy', value: (c) => c.logCleanupPolicy.join(',') },
  'retention.ms': { broker: 'log.retention.ms', value: (c) => String(c.logRetentionMs) },
  'retention.bytes': { broker: 'log.retention.bytes', value: (c) => String(c.logRetentionBytes) },
  'segment.bytes': { broker: 'log.segment.bytes', value: (c) => String(c.logSegmentBytes) },
  'segment.ms': { broker: 'log.roll.ms', value: (c) => String(c.logRollMs) },
  'segment.index.bytes': { broker: 'log.index.size.max.bytes', value: (c) => String(c.logIndexSizeMaxBytes) },
  'index.interval.bytes': { broker: 'log.index.interval.bytes', value: (c) => String(c.logIndexIntervalBytes) },
  'max.message.bytes': { broker: 'message.max.bytes', value: (c) => String(c.messageMaxBytes) },
  'min.insync.replicas': { broker: 'min.insync.replicas', value: (c) => String(c.minInsyncReplicas) },
  'unclean.leader.election.enable': { broker: 'unclean.leader.election.enable', value: (c) => String(c.uncleanLeaderElectionEnable) },
  'file.delete.delay.ms': { broker: 'log.segment.delete.delay.ms', value: (c) => String(c.logSegmentDeleteDelayMs) },
  'delete.retention.ms': { broker: 'log.cleaner.delete.retention.ms', value: (c) => fromBroker(c, 'log.cleaner.delete.retention.ms', '86400000') },
  'min.compaction.lag.ms': { broker: 'log.cleaner.min.compaction.lag.ms', value: (c) => fromBroker(c, 'log.cleaner.min.compaction.lag.ms', '0') },
  'max.compaction.lag.ms': { broker: 'log.cleaner.max.compaction.lag.ms', value: (c) => fromBroker(c, 'log.cleaner.max.compaction.lag.ms', LONG_MAX) },
  'min.cleanable.dirty.ratio': { broker: 'log.cleaner.min.cleanable.ratio', value: (c) => fromBroker(c, 'log.cleaner.min.cleanable.ratio', '0.5') },
  'message.timestamp.type': { broker: 'log.message.timestamp.type', value: (c) => fromBroker(c, 'log.message.timestamp.type', 'CreateTime') },
  'message.timestamp.difference.max.ms': {
    broker: 'log.message.timestamp.difference.max.ms',
    value: (c) => fromBroker(c, 'log.message.timestamp.difference.max.ms', LONG_MAX),
  },
  'compression.type': { broker: 'compression.type', value: (c) => fromBroker(c, 'compression.type', 'producer') },
  'flush.messages': { broker: 'log.flush.interval.messages', value: (c) => fromBroker(c, 'log.flush.interval.messages', LONG_MAX) },
  'flush.ms': { broker: 'log.flush.interval.ms', value: (c) => fromBroker(c, 'log.flush.interval.ms', LONG_MAX) },
  preallocate: { broker: 'log.preallocate', value: (c) => fromBroker(c, 'log.preallocate', 'false') },
  'message.format.version': { broker: 'log.message.format.version', value: (c) => fromBroker(c, 'log.message.format.version', '2.4-IV1') },
  'message.downconversion.enable': { broker: 'log.message.downconversion.enable', value: (c) => fromBroker(c, 'log.message.downconversion.enable', 'true') },
};

function fromBroker(c: BrokerConfig, name: string, kafkaDefault: string): string {
  return c.originals[name]?.trim() ?? kafkaDefault;
}

/**
 * A topic's effective settings with their sources, as Kafka's AdminManager.createTopicConfigEntry
 * (without synonyms) builds them: TOPIC_CONFIG for an override; STATIC_BROKER_CONFIG when the broker's
 * properties set the synonym itself (log.retention.hours alone does not count, as in Kafka, whose
 * synonym list is cut at the exact name); DEFAULT_CONFIG otherwise. Nothing is read-only or sensitive.
 */
export function topicConfigEntries(broker: BrokerConfig, overrides: Record<string, string>): TopicConfigEntry[] {
  return topicConfigNames().map((name) => {
    const synonym = BROKER_SYNONYMS[name]!;
    const override = overrides[name];
    let value: string;
    let configSource: number;
    if (override !== undefined) {
      value = canonical(name, override);
      configSource = ConfigSource.TOPIC_CONFIG;
    } else {
      value = synonym.value(broker);
      configSource = broker.originals[synonym.broker] !== undefined ? ConfigSource.STATIC_BROKER_CONFIG : ConfigSource.DEFAULT_CONFIG;
    }
    return { name, value, readOnly: false, configSource, isSensitive: false };
  });
}

/** The value as Kafka's ConfigDef.convertToString prints the parsed setting (lists comma-joined, doubles with a fraction). */
function canonical(name: string, raw: string): string {
  const key = topicConfigKey(name);
  if (!key) return raw;
  let v;
  try {
    v = parseValue(key, raw);
  } catch {
    return raw; // validated before the topic was created; kept as given if not
  }
  if (Array.isArray(v)) return v.join(',');
  if (key.type === 'double' && typeof v === 'number' && Number.isInteger(v)) return v.toFixed(1);
  return String(v);
}
