import type { Logger } from '@gregor/common';
import type { LogManager } from '@gregor/storage';
import { configEntityDefault, desanitizeEntityName, type KafkaZkClient } from '@gregor/zookeeper';
import type { DynamicBrokerConfig } from './dynamic-broker-config.js';
import type { TopicConfigCache } from './topic-config-cache.js';

const PREFIX = 'config_change_';

/**
 * Kafka's ZkNodeChangeNotificationListener with its topic and broker config handlers: writers update
 * /config/topics/<t> or /config/brokers/<id|<default>> and announce it with a sequential
 * /config/changes/config_change_<n> node {"version":2,"entity_path":...}; every broker watches the
 * children, re-reads each announced entity and applies it (topic overrides to the logs it hosts;
 * <default> and its own id to its dynamic broker config). Notifications older than this broker's
 * start are skipped: it read configs fresh.
 */
export class ConfigChangeListener {
  readonly #zk: KafkaZkClient;
  readonly #configs: TopicConfigCache;
  readonly #logs: LogManager;
  readonly #dynamic: DynamicBrokerConfig;
  readonly #log: Logger;
  readonly #onUserChange: ((user: string) => Promise<void>) | undefined;
  #lastSeen = -1;
  #stopped = false;
  #running: Promise<void> = Promise.resolve();

  /** `onUserChange`: a `users/<user>` notification (SCRAM credentials changed by kafka-configs or `gregor users`). */
  constructor(zk: KafkaZkClient, configs: TopicConfigCache, logs: LogManager, dynamic: DynamicBrokerConfig, log: Logger, onUserChange?: (user: string) => Promise<void>) {
    this.#zk = zk;
    this.#onUserChange = onUserChange;
    this.#configs = configs;
    this.#logs = logs;
    this.#dynamic = dynamic;
    this.#log = log;
  }

  /** Reads the current notifications (watching for more); the first call only records where we are. */
  async start(): Promise<void> {
    const children = await this.#zk.getConfigChangeNotifications(() => this.#schedule());
    this.#lastSeen = Math.max(this.#lastSeen, ...children.map(sequenceOf));
  }

  /** New overrides of one topic: into the cache, and into the config of every log of it this broker hosts. */
  applyTopicConfig(topic: string, overrides: Record<string, string>): void {
    this.#configs.set(topic, overrides);
    this.#reconfigureLogs((t) => t === topic);
  }

  /** The broker's topic defaults changed (dynamic broker configs): logs without an override follow them. */
  applyBrokerDefaults(): void {
    this.#configs.refreshAll();
    this.#reconfigureLogs(() => true);
  }

  #reconfigureLogs(matches: (topic: string) => boolean): void {
    for (const log of this.#logs.allLogs()) {
      if (matches(log.topic)) log.updateConfig({ ...log.config, ...this.#configs.get(log.topic).log });
    }
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#running = this.#running.then(() => this.#process()).catch((err) => this.#log.warn({ err: (err as Error).message }, 'config change processing failed'));
  }

  async #process(): Promise<void> {
    const children = await this.#zk.getConfigChangeNotifications(() => this.#schedule());
    const entities = new Set<string>();
    for (const child of children) {
      const seq = sequenceOf(child);
      if (seq <= this.#lastSeen) continue;
      this.#lastSeen = seq;
      try {
        const entity = await this.#zk.getConfigChangeNotification(child);
        if (entity !== null) entities.add(entity);
      } catch (err) {
        this.#log.warn({ node: child, err: (err as Error).message }, 'unreadable config change notification');
      }
    }
    const ownBroker = `brokers/${this.#dynamic.brokerId}`;
    for (const entity of entities) {
      if (entity.startsWith('topics/')) {
        const topic = entity.slice('topics/'.length);
        const overrides = await this.#zk.getTopicConfig(topic);
        this.applyTopicConfig(topic, overrides);
        this.#log.info({ topic, overrides }, 'topic config changed');
      } else if (entity === `brokers/${configEntityDefault}`) {
        this.#dynamic.updateDefault(await this.#zk.getBrokerConfig(configEntityDefault));
      } else if (entity === ownBroker) {
        this.#dynamic.updateBroker(await this.#zk.getBrokerConfig(this.#dynamic.brokerId));
      } else if (entity.startsWith('users/')) {
        await this.#onUserChange?.(desanitizeEntityName(entity.slice('users/'.length)));
      }
    }
  }

  /** After a new ZooKeeper session the watch is gone: arm it again and catch up. */
  onNewSession(): void {
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }
}

function sequenceOf(name: string): number {
  const n = Number(name.slice(PREFIX.length));
  return Number.isFinite(n) ? n : -1;
}
