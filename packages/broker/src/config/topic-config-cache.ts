import type { BrokerConfig } from './broker-config.js';
import { effectiveTopicConfig, type EffectiveTopicConfig } from './topic-config.js';

/**
 * Topic overrides read from /config/topics/<t>, kept in memory so the produce and fetch paths
 * never wait on ZooKeeper. Loaded when this broker is told to host a topic.
 */
export class TopicConfigCache {
  readonly #broker: BrokerConfig;
  readonly #read: (topic: string) => Promise<Record<string, string>>;
  readonly #overrides = new Map<string, Record<string, string>>();
  readonly #effective = new Map<string, EffectiveTopicConfig>();

  constructor(broker: BrokerConfig, read: (topic: string) => Promise<Record<string, string>>) {
    this.#broker = broker;
    this.#read = read;
  }

  async load(topics: Iterable<string>): Promise<void> {
    for (const t of new Set(topics)) {
      if (this.#overrides.has(t)) continue;
      this.set(t, await this.#read(t));
    }
  }

  set(topic: string, overrides: Record<string, string>): void {
    this.#overrides.set(topic, overrides);
    this.#effective.set(topic, effectiveTopicConfig(this.#broker, overrides));
  }

  /** The broker's defaults changed (dynamic broker configs): recompute every topic's effective config. */
  refreshAll(): void {
    for (const topic of this.#effective.keys()) this.#effective.set(topic, effectiveTopicConfig(this.#broker, this.overrides(topic)));
  }

  forget(topic: string): void {
    this.#overrides.delete(topic);
    this.#effective.delete(topic);
  }

  overrides(topic: string): Record<string, string> {
    return this.#overrides.get(topic) ?? {};
  }

  get(topic: string): EffectiveTopicConfig {
    let e = this.#effective.get(topic);
    if (!e) this.#effective.set(topic, (e = effectiveTopicConfig(this.#broker, {})));
    return e;
  }
}
