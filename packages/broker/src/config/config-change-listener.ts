import type { Logger } from '@gregor/common';
import type { LogManager } from '@gregor/storage';
import { configChangesPath, type KafkaZkClient } from '@gregor/zookeeper';
import type { TopicConfigCache } from './topic-config-cache.js';

const PREFIX = 'config_change_';

/**
 * Kafka's ZkNodeChangeNotificationListener for topic configs: writers update /config/topics/<t> and
 * announce it with a sequential /config/changes/config_change_<n> node {"version":2,"entity_path":"topics/<t>"};
 * every broker watches the children, re-reads each announced topic's overrides and applies them to
 * the logs it hosts. Notifications older than this broker's start are skipped: it read configs fresh.
 */
export class ConfigChangeListener {
  readonly #zk: KafkaZkClient;
  readonly #configs: TopicConfigCache;
  readonly #logs: LogManager;
  readonly #log: Logger;
  #lastSeen = -1;
  #stopped = false;
  #running: Promise<void> = Promise.resolve();

  constructor(zk: KafkaZkClient, configs: TopicConfigCache, logs: LogManager, log: Logger) {
    this.#zk = zk;
    this.#configs = configs;
    this.#logs = logs;
    this.#log = log;
  }

  /** Reads the current notifications (watching for more); the first call only records where we are. */
  async start(): Promise<void> {
    const children = await this.#zk.zk.getChildren(configChangesPath, () => this.#schedule());
    this.#lastSeen = Math.max(this.#lastSeen, ...children.map(sequenceOf));
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#running = this.#running.then(() => this.#process()).catch((err) => this.#log.warn({ err: (err as Error).message }, 'config change processing failed'));
  }

  async #process(): Promise<void> {
    const children = (await this.#zk.zk.getChildren(configChangesPath, () => this.#schedule())).filter((c) => c.startsWith(PREFIX)).sort();
    const topics = new Set<string>();
    for (const child of children) {
      const seq = sequenceOf(child);
      if (seq <= this.#lastSeen) continue;
      this.#lastSeen = seq;
      const node = await this.#zk.zk.getDataOrNull(`${configChangesPath}/${child}`);
      if (!node) continue;
      try {
        const entity = (JSON.parse(node.data.toString('utf8')) as { entity_path?: string }).entity_path ?? '';
        if (entity.startsWith('topics/')) topics.add(entity.slice('topics/'.length));
      } catch {
        this.#log.warn({ node: child }, 'unreadable config change notification');
      }
    }
    for (const topic of topics) {
      const overrides = await this.#zk.getTopicConfig(topic);
      this.#configs.set(topic, overrides);
      const logConfig = this.#configs.get(topic).log;
      for (const log of this.#logs.allLogs()) {
        if (log.topic === topic) log.updateConfig({ ...log.config, ...logConfig });
      }
      this.#log.info({ topic, overrides }, 'topic config changed');
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
