import type { Logger } from '@gregor/common';
import { ConnectionPool, type PartitionFetchState } from '@gregor/net';
import type { ConsumerConfig } from './consumer-config.js';
import { ConsumerFetcherThread } from './consumer-fetcher-thread.js';
import { javaStringHashCode } from './java-hash.js';
import { LeaderFinderThread, type BrokerEndpoint, type PartitionLeader } from './leader-finder-thread.js';
import type { PartitionTopicInfo } from './partition-topic-info.js';

const key = (topic: string, partition: number) => `${topic}-${partition}`;

export interface FetcherView {
  name: string;
  brokerId: number;
  partitions: string[];
  paused: number;
}

/** Kafka's Utils.abs on an int32 (MIN_VALUE → 0). */
function abs32(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/**
 * Kafka's ConsumerFetcherManager: the owned partitions start in the no-leader set; the
 * LeaderFinderThread finds their leaders and adds them to one ConsumerFetcherThread per
 * (leader broker, fetcher id). Partitions a fetcher cannot serve come back to the set, so a moved
 * leader is followed without a rebalance.
 */
export class ConsumerFetcherManager {
  readonly #consumerId: string;
  readonly #config: ConsumerConfig;
  readonly #brokers: () => Promise<BrokerEndpoint[]>;
  readonly #log: Logger;
  /** Connections for the leader finder's Metadata requests (fetchers have their own, for long polls). */
  readonly #pool: ConnectionPool;
  readonly #fetchers = new Map<string, ConsumerFetcherThread>();
  #partitionMap: Map<string, PartitionTopicInfo> | null = null;
  readonly #noLeader = new Map<string, { topic: string; partition: number }>();
  #wakeFinder: (() => void) | null = null;
  #leaderFinder: LeaderFinderThread | null = null;
  #healthTimer: NodeJS.Timeout | null = null;
  /** How many times a partition was handed to a fetcher (observability: leader moves show here). */
  fetcherAssignments = 0;

  constructor(consumerId: string, config: ConsumerConfig, brokers: () => Promise<BrokerEndpoint[]>, log: Logger) {
    this.#consumerId = consumerId;
    this.#config = config;
    this.#brokers = brokers;
    this.#log = log;
    this.#pool = new ConnectionPool({
      clientId: config.clientId,
      requestTimeoutMs: config.socketTimeoutMs,
      connectTimeoutMs: Math.min(config.socketTimeoutMs, 5000),
      logger: log,
    });
  }

  /** Starts fetching the partitions this consumer now owns. */
  startConnections(infos: PartitionTopicInfo[]): void {
    this.#partitionMap = new Map(infos.map((i) => [i.key, i]));
    this.#leaderFinder = new LeaderFinderThread(
      {
        takeNoLeaderPartitions: () => {
          const all = [...this.#noLeader.values()];
          this.#noLeader.clear();
          return all;
        },
        returnNoLeaderPartitions: (tps) => this.#addNoLeader(tps),
        waitForNoLeaderPartitions: (signal) => this.#waitForNoLeader(signal),
        brokers: this.#brokers,
        addFetchers: (leaders) => this.#addFetcherForPartitions(leaders),
        shutdownIdleFetchers: () => this.#shutdownIdleFetchers(),
      },
      this.#pool,
      this.#config.refreshLeaderBackoffMs,
      this.#log.child({ component: `${this.#consumerId}-leader-finder-thread` }),
    );
    this.#addNoLeader(infos.map((i) => ({ topic: i.topic, partition: i.partition })));
    this.#leaderFinder.start();
    this.#healthTimer = setInterval(() => this.#checkSilentFetchers(), Math.max(100, this.#config.refreshLeaderBackoffMs));
  }

  /** A leader that stopped answering (killed, partitioned away) gives its partitions back to the leader finder. */
  #checkSilentFetchers(): void {
    const limit = this.#config.fetchWaitMaxMs + Math.max(2000, 10 * this.#config.refreshLeaderBackoffMs);
    for (const f of this.#fetchers.values()) {
      if (f.silentForMs() <= limit) continue;
      const states = f.partitions();
      this.#log.warn({ fetcher: f.name, partitions: states.length, silentMs: f.silentForMs() }, 'leader does not answer: finding leaders again');
      f.removePartitions(states);
      this.addPartitionsWithError(states);
    }
  }

  /** Leader finder first (so it adds nothing more), then every fetcher. */
  async stopConnections(): Promise<void> {
    if (this.#healthTimer) clearInterval(this.#healthTimer);
    this.#healthTimer = null;
    const finder = this.#leaderFinder;
    this.#leaderFinder = null;
    await finder?.stop();
    const fetchers = [...this.#fetchers.values()];
    this.#fetchers.clear();
    await Promise.all(fetchers.map((f) => f.shutdown()));
    this.#partitionMap = null;
    this.#noLeader.clear();
  }

  async shutdown(): Promise<void> {
    await this.stopConnections();
    await this.#pool.close();
  }

  /** Partitions a fetcher gave up on (not leader, unknown): the leader finder looks again. */
  addPartitionsWithError(tps: { topic: string; partition: number }[]): void {
    if (!this.#partitionMap) return;
    this.#addNoLeader(tps.filter((tp) => this.#partitionMap?.has(key(tp.topic, tp.partition))));
  }

  info(topic: string, partition: number): PartitionTopicInfo | undefined {
    return this.#partitionMap?.get(key(topic, partition));
  }

  fetchers(): FetcherView[] {
    return [...this.#fetchers.values()].map((f) => ({
      name: f.name,
      brokerId: f.opts.source.brokerId,
      partitions: f.partitions().map((p) => key(p.topic, p.partition)),
      paused: f.pausedCount(),
    }));
  }

  /** The broker a partition is fetched from, or -1 while it has no fetcher (or is paused). */
  fetchingFrom(topic: string, partition: number): number {
    for (const f of this.#fetchers.values()) if (f.fetchState(topic, partition)) return f.opts.source.brokerId;
    return -1;
  }

  noLeaderPartitions(): string[] {
    return [...this.#noLeader.keys()];
  }

  #addNoLeader(tps: { topic: string; partition: number }[]): void {
    if (tps.length === 0) return;
    for (const tp of tps) this.#noLeader.set(key(tp.topic, tp.partition), tp);
    this.#wakeFinder?.();
  }

  #waitForNoLeader(signal: AbortSignal): Promise<void> {
    if (this.#noLeader.size > 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.#wakeFinder = null;
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#wakeFinder = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #fetcherId(topic: string, partition: number): number {
    return abs32((Math.imul(31, javaStringHashCode(topic)) + partition) | 0) % this.#config.numConsumerFetchers;
  }

  #addFetcherForPartitions(leaders: PartitionLeader[]): void {
    const map = this.#partitionMap;
    if (!map) return;
    for (const l of leaders) {
      const info = map.get(key(l.topic, l.partition));
      if (!info) continue;
      const fetcherId = this.#fetcherId(l.topic, l.partition);
      const fk = `${l.leader.brokerId}-${fetcherId}`;
      let fetcher = this.#fetchers.get(fk);
      if (fetcher && (fetcher.opts.source.host !== l.leader.host || fetcher.opts.source.port !== l.leader.port)) {
        // The broker came back on another address: retire the old fetcher.
        void fetcher.shutdown();
        this.#fetchers.delete(fk);
        fetcher = undefined;
      }
      if (!fetcher) {
        fetcher = this.#newFetcher(l.leader, fetcherId);
        this.#fetchers.set(fk, fetcher);
        fetcher.start();
      }
      // A partition moves between fetchers only through the no-leader set, so no other fetcher has it.
      fetcher.addInfos([info]);
      this.fetcherAssignments++;
    }
  }

  #newFetcher(leader: BrokerEndpoint, fetcherId: number): ConsumerFetcherThread {
    const c = this.#config;
    return new ConsumerFetcherThread(
      {
        name: `ConsumerFetcherThread-${this.#consumerId}-${fetcherId}-${leader.brokerId}`,
        source: leader,
        clientId: c.clientId,
        replicaId: -1,
        maxWaitMs: c.fetchWaitMaxMs,
        minBytes: c.fetchMinBytes,
        maxBytes: 2_147_483_647, // the old consumer had no response limit, only the per-partition one
        partitionMaxBytes: c.fetchMessageMaxBytes,
        backoffMs: c.refreshLeaderBackoffMs,
        requestTimeoutMs: c.socketTimeoutMs,
        logger: this.#log,
      },
      c.autoOffsetReset,
      {
        info: (topic, partition) => this.info(topic, partition),
        onPartitionsFailed: (states: PartitionFetchState[]) => this.addPartitionsWithError(states),
      },
    );
  }

  async #shutdownIdleFetchers(): Promise<void> {
    for (const [fk, f] of [...this.#fetchers]) {
      if (f.assignedCount === 0) {
        this.#fetchers.delete(fk);
        await f.shutdown();
      }
    }
  }
}
