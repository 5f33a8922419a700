import { describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { ConfigDataType, ConfigSource } from '@gregor/protocol';
import { buildBrokerConfig } from './broker-config.js';
import { configSynonyms, describeBrokerConfigs, describeTopicConfigs, type DescribeOptions } from './config-describer.js';
import { DynamicBrokerConfig } from './dynamic-broker-config.js';

/** A broker started with server.properties `static`, then given dynamic configs at <default> and for itself. */
function broker(staticProps: Record<string, string>, dynamicDefault: Record<string, string> = {}, dynamicBroker: Record<string, string> = {}) {
  const config = buildBrokerConfig(new Map(Object.entries({ 'broker.id': '1', 'zookeeper.connect': 'z:2181', ...staticProps })));
  const dyn = new DynamicBrokerConfig(config, silentLogger());
  dyn.updateDefault(dynamicDefault);
  dyn.updateBroker(dynamicBroker);
  return { levels: dyn.levels(), broker: dyn.config, dyn };
}

const all: DescribeOptions = { keys: null, includeSynonyms: true, includeDocumentation: false };
const only = (...keys: string[]): DescribeOptions => ({ ...all, keys });

describe('DescribeConfigs synonyms and sources', () => {
  it('lists a setting at each level where it is set, most preferred first, dropping synonyms before its own name', () => {
    const { levels } = broker({ 'log.retention.hours': '24' }, { 'log.retention.ms': '7200000' }, { 'log.retention.ms': '3600000' });
    expect(configSynonyms('log.retention.ms', levels, false)).toEqual([
      { name: 'log.retention.ms', value: '3600000', source: ConfigSource.DYNAMIC_BROKER_CONFIG },
      { name: 'log.retention.ms', value: '7200000', source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '24', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
    ]);
    // describing log.retention.hours drops the ms entries above its first own entry
    expect(configSynonyms('log.retention.hours', levels, false).map((s) => s.source)).toEqual([ConfigSource.STATIC_BROKER_CONFIG, ConfigSource.DEFAULT_CONFIG]);
    // nothing names log.retention.ms at any level: no synonyms (as Kafka describes an untouched topic's retention.ms)
    expect(configSynonyms('log.retention.ms', broker({}).levels, false)).toEqual([]);
  });

  it('topic: the override first (TOPIC_CONFIG), then the broker synonym at each level; the value is the effective one', () => {
    const src = broker({ 'log.retention.hours': '24', 'min.insync.replicas': '2' }, { 'log.retention.ms': '7200000' });
    const described = describeTopicConfigs(src, { 'min.insync.replicas': '3' }, only('retention.ms', 'min.insync.replicas', 'segment.bytes', 'compression.type'));
    expect(described).toHaveLength(4);
    const [retention, minIsr, segment, compression] = ['retention.ms', 'min.insync.replicas', 'segment.bytes', 'compression.type'].map((n) => described.find((c) => c.name === n));
    expect(retention).toMatchObject({
      name: 'retention.ms',
      value: '7200000',
      configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
      readOnly: false,
      isSensitive: false,
      configType: ConfigDataType.LONG,
      synonyms: [
        { name: 'log.retention.ms', value: '7200000', source: 3 },
        { name: 'log.retention.hours', value: '24', source: 4 },
        { name: 'log.retention.hours', value: '168', source: 5 },
      ],
    });
    expect(minIsr).toMatchObject({
      value: '3',
      configSource: ConfigSource.TOPIC_CONFIG,
      synonyms: [
        { name: 'min.insync.replicas', value: '3', source: 1 },
        { name: 'min.insync.replicas', value: '2', source: 4 },
        { name: 'min.insync.replicas', value: '1', source: 5 },
      ],
    });
    expect(segment).toMatchObject({ value: '1073741824', configSource: ConfigSource.DEFAULT_CONFIG, configType: ConfigDataType.INT });
    // the broker's compression.type (default producer) is the topic default, as in Kafka
    expect(compression).toMatchObject({ value: 'producer', configSource: ConfigSource.DEFAULT_CONFIG, synonyms: [{ name: 'compression.type', value: 'producer', source: 5 }] });
  });

  it('topic: every topic config by default, derived values (retention from hours, roll from hours) and no synonyms unless asked', () => {
    const configs = describeTopicConfigs(broker({ 'log.retention.hours': '1', 'log.roll.hours': '2' }), {}, { keys: [], includeSynonyms: false, includeDocumentation: true });
    const byName = new Map(configs.map((c) => [c.name, c]));
    expect(byName.size).toBeGreaterThan(20);
    expect(byName.get('retention.ms')!.value).toBe('3600000');
    expect(byName.get('segment.ms')!.value).toBe('7200000');
    expect(byName.get('cleanup.policy')).toMatchObject({ value: 'delete', configType: ConfigDataType.LIST, synonyms: [] });
    expect(byName.get('retention.ms')!.documentation).toMatch(/Retention/);
  });

  it('broker "<id>": every setting with its source; read-only unless dynamically updatable; secrets have no value', () => {
    const src = broker({ 'num.partitions': '3', 'http.auth.token': 's3cret' }, { 'message.max.bytes': '2000000' }, { 'message.max.bytes': '3000000' });
    const configs = describeBrokerConfigs(src, true, all);
    const byName = new Map(configs.map((c) => [c.name, c]));
    expect(byName.get('message.max.bytes')).toMatchObject({
      value: '3000000',
      readOnly: false,
      configSource: ConfigSource.DYNAMIC_BROKER_CONFIG,
      synonyms: [
        { name: 'message.max.bytes', value: '3000000', source: 2 },
        { name: 'message.max.bytes', value: '2000000', source: 3 },
        { name: 'message.max.bytes', value: '1048588', source: 5 },
      ],
    });
    expect(byName.get('num.partitions')).toMatchObject({ value: '3', readOnly: true, configSource: ConfigSource.STATIC_BROKER_CONFIG });
    expect(byName.get('broker.id')).toMatchObject({ value: '1', readOnly: true });
    expect(byName.get('log.retention.ms')).toMatchObject({ value: null, readOnly: false, configSource: ConfigSource.DEFAULT_CONFIG, synonyms: [] });
    expect(byName.get('log.retention.hours')).toMatchObject({ value: '168', readOnly: true });
    expect(byName.get('listeners')).toMatchObject({ readOnly: true });
    expect(byName.get('http.auth.token')).toMatchObject({
      value: null,
      isSensitive: true,
      configType: ConfigDataType.PASSWORD,
      synonyms: [{ name: 'http.auth.token', value: null, source: 4 }],
    });
  });

  it('broker "": only the cluster-wide dynamic defaults that are set, with their <default> synonyms only', () => {
    const src = broker({ 'message.max.bytes': '5000' }, { 'message.max.bytes': '2000000', 'log.cleanup.policy': 'compact, delete' }, { 'message.max.bytes': '3000000' });
    expect(describeBrokerConfigs(src, false, all)).toEqual([
      {
        name: 'message.max.bytes',
        value: '2000000',
        readOnly: false,
        configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
        isSensitive: false,
        synonyms: [{ name: 'message.max.bytes', value: '2000000', source: 3 }],
        configType: ConfigDataType.INT,
        documentation: null,
      },
      {
        name: 'log.cleanup.policy',
        value: 'compact,delete',
        readOnly: false,
        configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
        isSensitive: false,
        synonyms: [{ name: 'log.cleanup.policy', value: 'compact, delete', source: 3 }],
        configType: ConfigDataType.LIST,
        documentation: null,
      },
    ]);
  });
});

describe('CreateTopics v5 echo (KIP-525): the same describer without synonyms', () => {
  const none: DescribeOptions = { keys: null, includeSynonyms: false, includeDocumentation: false };

  it('lists every topic setting once, with the source Kafka gives it', () => {
    const src = broker({ 'log.segment.bytes': '1048576', 'log.retention.hours': '1' });
    const entries = describeTopicConfigs(src, { 'cleanup.policy': 'compact, delete' }, none);
    const by = Object.fromEntries(entries.map((e) => [e.name, e]));
    // An override: TOPIC_CONFIG (1), printed as ConfigDef.convertToString does (list comma-joined).
    expect(by['cleanup.policy']).toMatchObject({ value: 'compact,delete', readOnly: false, configSource: 1, isSensitive: false, synonyms: [] });
    // The broker sets the synonym itself: STATIC_BROKER_CONFIG (4).
    expect(by['segment.bytes']).toMatchObject({ value: '1048576', configSource: 4 });
    // log.retention.hours is not log.retention.ms: Kafka says DEFAULT_CONFIG (5), with the broker's effective value.
    expect(by['retention.ms']).toMatchObject({ value: '3600000', configSource: 5 });
    expect(by['max.message.bytes']).toMatchObject({ value: '1048588', configSource: 5 });
    expect(by['min.cleanable.dirty.ratio']).toMatchObject({ value: '0.5', configSource: 5 });
  });

  it('prints a whole double override with a fraction, as Java does', () => {
    const [entry] = describeTopicConfigs(broker({}), { 'min.cleanable.dirty.ratio': '1' }, { ...none, keys: ['min.cleanable.dirty.ratio'] });
    expect(entry).toMatchObject({ value: '1.0', configSource: 1 });
  });
});
