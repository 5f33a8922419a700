import { ErrorCode, GregorError, sleep, type Logger } from '@gregor/common';
import { isRetriableError, KafkaClient, KafkaOffsetStore, NetworkError } from '@gregor/client';
import type { BrokerEndpoint } from './leader-finder-thread.js';
import type { OffsetStore, TopicPartitionOffset } from './offset-store.js';

export interface OffsetManagerStoreOptions {
  /** The brokers registered in ZooKeeper: where the offsets channel bootstraps from. */
  brokers: () => Promise<BrokerEndpoint[]>;
  clientId: string;
  /** `offsets.channel.socket.timeout.ms` */
  socketTimeoutMs: number;
  /** `offsets.channel.backoff.ms`: pause between OffsetFetch attempts. */
  backoffMs: number;
  /** True once the connector shuts down: OffsetFetch stops retrying. */
  stopped: () => boolean;
  log: Logger;
}

/** Errors after which Kafka's connector disconnected its offsets channel and looked the coordinator up again. */
const RECONNECT_ERRORS: ReadonlySet<number> = new Set([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NETWORK_EXCEPTION]);

/**
 * offsets.storage=kafka (0.8.2+): offsets in `__consumer_offsets`, through the group's offset manager
 * (the broker-side group coordinator) with OffsetCommit outside any generation and OffsetFetch.
 *
 * Like Kafka's offsets channel, one request at a time; a commit is one attempt (the connector retries
 * `offsets.commit.max.retries` times, not for auto-commits), while a fetch retries until it succeeds
 * or the connector shuts down (a failed fetch would otherwise fail the whole rebalance).
 */
export class OffsetManagerStore implements OffsetStore {
  readonly name = 'kafka' as const;
  readonly #options: OffsetManagerStoreOptions;
  #client: KafkaClient | null = null;
  readonly #stores = new Map<string, KafkaOffsetStore>();
  #lock: Promise<unknown> = Promise.resolve();

  constructor(options: OffsetManagerStoreOptions) {
    this.#options = options;
  }

  async commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    await this.#serially(() => this.#attempt(group, (store) => store.commit(offsets)));
  }

  async fetch(group: string, partitions: readonly { topic: string; partition: number }[]): Promise<Map<string, number | null>> {
    if (partitions.length === 0) return new Map();
    const wanted = partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
    for (;;) {
      try {
        const committed = await this.#serially(() => this.#attempt(group, (store) => store.fetch(wanted)));
        return new Map(
          wanted.map((p) => {
            const offset = committed.get(KafkaOffsetStore.key(p.topic, p.partition))?.offset ?? -1;
            return [`${p.topic}-${p.partition}`, offset < 0 ? null : offset];
          }),
        );
      } catch (error) {
        if (!isRetriableError(error) || this.#options.stopped()) throw error;
        this.#options.log.warn({ group, err: error.message, retryInMs: this.#options.backoffMs }, 'offset fetch from the offset manager failed; retrying');
        await sleep(this.#options.backoffMs);
        if (this.#options.stopped()) throw error;
      }
    }
  }

  /** Closes the offsets channel (the connections to the brokers). */
  async close(): Promise<void> {
    await this.#serially(() => this.#disconnect());
  }

  /** One request to the coordinator; coordinator and network errors drop the channel so the next attempt starts afresh. */
  async #attempt<T>(group: string, op: (store: KafkaOffsetStore) => Promise<T>): Promise<T> {
    try {
      return await op(await this.#store(group));
    } catch (error) {
      if (error instanceof GregorError && RECONNECT_ERRORS.has(error.code)) {
        this.#stores.get(group)?.resetCoordinator();
        if (error.code === ErrorCode.NETWORK_EXCEPTION) await this.#disconnect();
      }
      throw error;
    }
  }

  async #store(group: string): Promise<KafkaOffsetStore> {
    if (!this.#client) {
      const brokers = await this.#options.brokers();
      if (brokers.length === 0) throw new NetworkError('no broker registered in ZooKeeper to reach the offset manager');
      const timeout = this.#options.socketTimeoutMs;
      this.#client = new KafkaClient({
        brokers: brokers.map((b) => `${b.host}:${b.port}`),
        clientId: this.#options.clientId,
        requestTimeoutMs: timeout,
        connectTimeoutMs: Math.min(timeout, 5000),
        logger: this.#options.log,
      });
    }
    let store = this.#stores.get(group);
    if (!store) {
      store = new KafkaOffsetStore(this.#client, group, { retries: 0 });
      this.#stores.set(group, store);
    }
    return store;
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    this.#stores.clear();
    await client?.close().catch(() => {});
  }

  /** Kafka's offsetsChannelLock: requests on the channel never overlap. */
  #serially<T>(op: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(op);
    this.#lock = run.catch(() => {});
    return run;
  }
}
