import { describe, expect, it } from 'vitest';
import { buildBrokerConfig } from './broker-config.js';
import { topicConfigEntries } from './topic-config-entries.js';
import { topicConfigNames } from './topic-config.js';

const broker = (extra: Record<string, string> = {}) =>
  buildBrokerConfig(new Map(Object.entries({ 'broker.id': '1', 'zookeeper.connect': '127.0.0.1:2181', ...extra })));

describe('topic config entries (CreateTopics v5 echo, KIP-525)', () => {
  it('lists every topic setting once, with the source Kafka gives it', () => {
    const entries = topicConfigEntries(broker({ 'log.segment.bytes': '1048576', 'log.retention.hours': '1' }), { 'cleanup.policy': 'compact, delete' });
    expect(entries.map((e) => e.name)).toEqual(topicConfigNames());
    const by = Object.fromEntries(entries.map((e) => [e.name, e]));
    // An override: TOPIC_CONFIG (1), printed as ConfigDef.convertToString does (list comma-joined).
    expect(by['cleanup.policy']).toEqual({ name: 'cleanup.policy', value: 'compact,delete', readOnly: false, configSource: 1, isSensitive: false });
    // The broker sets the synonym itself: STATIC_BROKER_CONFIG (4).
    expect(by['segment.bytes']).toMatchObject({ value: '1048576', configSource: 4 });
    // log.retention.hours is not log.retention.ms: Kafka says DEFAULT_CONFIG (5), with the broker's effective value.
    expect(by['retention.ms']).toMatchObject({ value: '3600000', configSource: 5 });
    expect(by['max.message.bytes']).toMatchObject({ value: '1048588', configSource: 5 });
    expect(by['min.cleanable.dirty.ratio']).toMatchObject({ value: '0.5', configSource: 5 });
    expect(by['compression.type']).toMatchObject({ value: 'producer', configSource: 5 });
    expect(entries.every((e) => !e.readOnly && !e.isSensitive && e.value !== null)).toBe(true);
  });

  it('prints a whole double override with a fraction, as Java does', () => {
    const [entry] = topicConfigEntries(broker(), { 'min.cleanable.dirty.ratio': '1' }).filter((e) => e.name === 'min.cleanable.dirty.ratio');
    expect(entry).toMatchObject({ value: '1.0', configSource: 1 });
  });
});
