import { ConfigDataType, ConfigSource, type DescribeConfigsResourceResult, type DescribeConfigsSynonym } from '@gregor/protocol';
import { brokerConfigKey, knownConfigNames, type BrokerConfig } from './broker-config.js';
import { normalizeValue, type ConfigKey, type ConfigType } from './config-def.js';
import { brokerConfigSynonyms } from './dynamic-config-names.js';
import { isDynamicallyUpdatable, type ConfigLevels } from './dynamic-broker-config.js';
import { topicConfigDefault, topicConfigKey, topicConfigNames } from './topic-config.js';

/** What DescribeConfigs reads: the broker's setting levels and its current (derived) configuration. */
export interface DescribeSource {
  levels: ConfigLevels;
  broker: BrokerConfig;
}

export interface DescribeOptions {
  /** null or empty = every config. */
  keys: readonly string[] | null;
  includeSynonyms: boolean;
  includeDocumentation: boolean;
}

const DATA_TYPE: Record<ConfigType, number> = {
  boolean: ConfigDataType.BOOLEAN,
  string: ConfigDataType.STRING,
  int: ConfigDataType.INT,
  long: ConfigDataType.LONG,
  double: ConfigDataType.DOUBLE,
  list: ConfigDataType.LIST,
  password: ConfigDataType.PASSWORD,
};

/**
 * The synonyms of a broker setting at each level where one is set, levels in precedence order
 * (per-broker, <default>, static, default) and, within a level, the synonyms in preference order;
 * entries before the first one named `name` are dropped (ConfigHelper.configSynonyms). So a topic's
 * retention.ms lists log.retention.ms where set, then the minutes/hours it falls back to below it.
 */
export function configSynonyms(name: string, levels: ConfigLevels, sensitive: boolean): DescribeConfigsSynonym[] {
  const names = brokerConfigSynonyms(name);
  const all: DescribeConfigsSynonym[] = [];
  const add = (map: Readonly<Record<string, string>>, source: number) => {
    for (const n of names) if (map[n] !== undefined) all.push({ name: n, value: sensitive ? null : map[n]!, source });
  };
  add(levels.dynamicBroker, ConfigSource.DYNAMIC_BROKER_CONFIG);
  add(levels.dynamicDefault, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
  add(levels.static, ConfigSource.STATIC_BROKER_CONFIG);
  add(levels.defaults, ConfigSource.DEFAULT_CONFIG);
  const first = all.findIndex((s) => s.name === name);
  return first < 0 ? [] : all.slice(first);
}

function selected(names: string[], keys: readonly string[] | null): string[] {
  if (!keys || keys.length === 0) return names;
  const wanted = new Set(keys);
  return names.filter((n) => wanted.has(n));
}

function entry(
  key: ConfigKey,
  value: string | null,
  readOnly: boolean,
  synonyms: DescribeConfigsSynonym[],
  opts: DescribeOptions,
): DescribeConfigsResourceResult {
  const sensitive = key.type === 'password';
  return {
    name: key.name,
    value: sensitive ? null : value,
    readOnly,
    configSource: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
    isSensitive: sensitive,
    synonyms: opts.includeSynonyms ? synonyms : [],
    configType: DATA_TYPE[key.type],
    documentation: opts.includeDocumentation ? key.doc : null,
  };
}

/** Every topic setting (or the asked ones) with its effective value: the override, else the broker's default. */
export function describeTopicConfigs(src: DescribeSource, overrides: Readonly<Record<string, string>>, opts: DescribeOptions): DescribeConfigsResourceResult[] {
  const setting = (n: string) => src.levels.dynamicBroker[n] ?? src.levels.dynamicDefault[n] ?? src.levels.static[n] ?? null;
  return selected(topicConfigNames(), opts.keys).map((name) => {
    const key = topicConfigKey(name)!;
    const sensitive = key.type === 'password';
    const overridden = overrides[name] !== undefined;
    const value = overridden ? normalizeValue(key, overrides[name]!) : topicConfigDefault(name, src.broker, (n) => brokerSetting(n, setting));
    const synonyms = configSynonyms(key.synonym, src.levels, sensitive);
    if (overridden) synonyms.unshift({ name, value: sensitive ? null : value, source: ConfigSource.TOPIC_CONFIG });
    return entry(key, value, false, synonyms, opts);
  });
}

/** A broker setting gregor knows, normalized; null if unset or unknown (the topic then uses Kafka's default). */
function brokerSetting(name: string, setting: (n: string) => string | null): string | null {
  const key = brokerConfigKey(name);
  const raw = setting(name);
  return key && raw !== null ? normalizeValue(key, raw) : null;
}

/**
 * Broker "<own id>" (`perBroker`): every setting, read-only unless gregor changes it at run time.
 * Broker "" : only the cluster-wide dynamic defaults that are set, with their <default> synonyms.
 */
export function describeBrokerConfigs(src: DescribeSource, perBroker: boolean, opts: DescribeOptions): DescribeConfigsResourceResult[] {
  const { levels } = src;
  const names = perBroker ? knownConfigNames() : Object.keys(levels.dynamicDefault).filter((n) => brokerConfigKey(n));
  return selected(names, opts.keys).map((name) => {
    const key = brokerConfigKey(name)!;
    const sensitive = key.type === 'password';
    const synonyms = configSynonyms(name, levels, sensitive).filter((s) => perBroker || s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
    const raw = perBroker ? (levels.dynamicBroker[name] ?? levels.dynamicDefault[name] ?? levels.static[name] ?? levels.defaults[name] ?? null) : levels.dynamicDefault[name]!;
    return entry(key, raw === null ? null : normalizeValue(key, raw), !isDynamicallyUpdatable(name), synonyms, opts);
  });
}
