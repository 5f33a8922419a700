import { ErrorCode, GregorError, type Logger } from '@gregor/common';
import { configEntityDefault, type KafkaZkClient } from '@gregor/zookeeper';
import { brokerConfigKey, buildBrokerConfig, knownConfigNames, type BrokerConfig } from './broker-config.js';
import { formatValue } from './config-def.js';
import { isClusterWideDynamic, isPerBrokerOnly } from './dynamic-config-names.js';

/** One level of broker settings, most preferred first: per-broker dynamic, <default> dynamic, server.properties, built-in defaults. */
export interface ConfigLevels {
  dynamicBroker: Readonly<Record<string, string>>;
  dynamicDefault: Readonly<Record<string, string>>;
  static: Readonly<Record<string, string>>;
  defaults: Readonly<Record<string, string>>;
}

/** gregor changes this setting at run time (Kafka lists it as cluster-wide or dynamic-only, and gregor knows it). */
export function isDynamicallyUpdatable(name: string): boolean {
  return brokerConfigKey(name) !== undefined && isClusterWideDynamic(name);
}

/**
 * Kafka's DynamicBrokerConfig: broker settings stored in /config/brokers/<id> (this broker) and
 * /config/brokers/<default> (every broker), over server.properties and the built-in defaults.
 * Precedence: per-broker > <default> > static > default. Every change rebuilds the configuration
 * and updates the one BrokerConfig object the broker's components read (as KafkaConfig does), then
 * tells the reconfigure listeners which fields changed.
 */
export class DynamicBrokerConfig {
  /** The live configuration: the same object every component holds. */
  readonly config: BrokerConfig;
  readonly #static: Readonly<Record<string, string>>;
  readonly #defaults: Readonly<Record<string, string>>;
  #dynamicDefault: Record<string, string> = {};
  #dynamicBroker: Record<string, string> = {};
  readonly #listeners = new Set<(changedFields: string[]) => void>();
  readonly #log: Logger;

  constructor(config: BrokerConfig, log: Logger) {
    this.config = config;
    this.#static = { ...config.originals };
    const defaults: Record<string, string> = {};
    for (const name of knownConfigNames()) {
      const value = formatValue(brokerConfigKey(name)!.default);
      if (value !== null) defaults[name] = value;
    }
    this.#defaults = defaults;
    this.#log = log;
  }

  get brokerId(): number {
    return this.config.brokerId;
  }

  levels(): ConfigLevels {
    return { dynamicBroker: { ...this.#dynamicBroker }, dynamicDefault: { ...this.#dynamicDefault }, static: this.#static, defaults: this.#defaults };
  }

  /** Reads both entities from ZooKeeper and applies them (startup, and to catch up after missed notifications). */
  async load(zk: KafkaZkClient): Promise<void> {
    const [cluster, own] = await Promise.all([zk.getBrokerConfig(configEntityDefault), zk.getBrokerConfig(this.config.brokerId)]);
    this.#apply(this.#sanitize(cluster, false, '<default>'), this.#sanitize(own, true, String(this.config.brokerId)));
  }

  /** /config/brokers/<default> changed. */
  updateDefault(persistent: Record<string, string>): void {
    this.#apply(this.#sanitize(persistent, false, '<default>'), this.#dynamicBroker);
  }

  /** /config/brokers/<own id> changed. */
  updateBroker(persistent: Record<string, string>): void {
    this.#apply(this.#dynamicDefault, this.#sanitize(persistent, true, String(this.config.brokerId)));
  }

  /** Called with the BrokerConfig fields that changed, after the live configuration was updated. */
  onReconfigure(listener: (changedFields: string[]) => void): void {
    this.#listeners.add(listener);
  }

  /** The text of the highest level (per-broker, <default>, static) that sets `name`; null if none does. */
  setting(name: string): string | null {
    return this.#dynamicBroker[name] ?? this.#dynamicDefault[name] ?? this.#static[name] ?? null;
  }

  /**
   * Checks a whole new override set for this broker (`perBroker`) or for <default>, as AlterConfigs
   * does before writing it; throws GregorError naming the offending settings.
   */
  validate(props: Record<string, string | null>, perBroker: boolean): void {
    const names = Object.keys(props);
    const nulls = names.filter((n) => props[n] === null);
    if (nulls.length > 0) throw new GregorError(ErrorCode.INVALID_REQUEST, `Null value not supported for: ${nulls.join(', ')}`);
    if (!perBroker) {
      const perBrokerOnly = names.filter(isPerBrokerOnly);
      if (perBrokerOnly.length > 0) {
        throw new GregorError(ErrorCode.INVALID_REQUEST, `Cannot update these configs at default cluster level, broker id must be specified: ${perBrokerOnly.join(', ')}`);
      }
    }
    const unknown = names.filter((n) => !brokerConfigKey(n));
    if (unknown.length > 0) throw new GregorError(ErrorCode.INVALID_CONFIG, `Unknown broker config name: ${unknown.join(', ')}`);
    const readOnly = names.filter((n) => !isDynamicallyUpdatable(n));
    if (readOnly.length > 0) {
      throw new GregorError(ErrorCode.INVALID_REQUEST, `Cannot update these configs dynamically: ${readOnly.join(', ')} (read-only: set them in server.properties and restart)`);
    }
    const next = props as Record<string, string>;
    try {
      buildBrokerConfig(toMap(this.#static), toMap(perBroker ? this.#dynamicDefault : next), toMap(perBroker ? next : this.#dynamicBroker));
    } catch (err) {
      throw new GregorError(ErrorCode.INVALID_REQUEST, (err as Error).message);
    }
  }

  /** Drops what may not be applied from ZooKeeper (Kafka's fromPersistentProps): it was not written by AlterConfigs. */
  #sanitize(persistent: Record<string, string>, perBroker: boolean, entity: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(persistent)) {
      if (!isDynamicallyUpdatable(name) || (!perBroker && isPerBrokerOnly(name))) {
        this.#log.warn({ entity, config: name }, 'ignoring a dynamic broker config that cannot be applied at run time');
        continue;
      }
      out[name] = value;
    }
    return out;
  }

  #apply(dynamicDefault: Record<string, string>, dynamicBroker: Record<string, string>): void {
    let next: BrokerConfig;
    try {
      next = buildBrokerConfig(toMap(this.#static), toMap(dynamicDefault), toMap(dynamicBroker));
    } catch (err) {
      this.#log.error({ err: (err as Error).message, dynamicDefault, dynamicBroker }, 'dynamic broker configs could not be applied');
      return;
    }
    this.#dynamicDefault = { ...dynamicDefault };
    this.#dynamicBroker = { ...dynamicBroker };
    const live = this.config as unknown as Record<string, unknown>;
    const changed: string[] = [];
    for (const [field, value] of Object.entries(next)) {
      if (field === 'originals') continue;
      if (JSON.stringify(live[field]) !== JSON.stringify(value)) {
        live[field] = value;
        changed.push(field);
      }
    }
    if (changed.length === 0) return;
    this.#log.info({ changed, dynamicDefault, dynamicBroker }, 'dynamic broker configs applied');
    for (const listener of this.#listeners) {
      try {
        listener(changed);
      } catch (err) {
        this.#log.error({ err }, 'reconfiguring after a dynamic broker config change failed');
      }
    }
  }
}

function toMap(record: Readonly<Record<string, string>>): Map<string, string> {
  return new Map(Object.entries(record));
}
