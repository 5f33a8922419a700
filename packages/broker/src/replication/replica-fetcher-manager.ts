import type { Logger } from '@gregor/common';
import type { ClientSecurity, Connection, FetcherSource, PartitionFetchState } from '@gregor/net';
import { ReadBufferPool } from '@gregor/storage';
import type { Partition } from '../cluster/partition.js';
import type { ReplicaLog } from '../cluster/replica-log.js';
import { ReplicaFetcherThread } from './replica-fetcher-thread.js';

export interface LeaderEndpoint {
  brokerId: number;
  host: string;
  port: number;
}

export interface ReplicaFetcherConfig {
  brokerId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  backoffMs: number;
  requestTimeoutMs: number;
  /** TLS/SASL towards leaders' inter-broker listeners. */
  security?: ClientSecurity;
  /** Opens a connection to a leader; default TCP (unit tests pass in-memory leaders). */
  connect?: (leader: FetcherSource) => Connection;
}

/**
 * One ReplicaFetcherThread per source broker (num.replica.fetchers = 1), shared by all partitions
 * this broker follows from that leader (Kafka's ReplicaFetcherManager).
 */
export class ReplicaFetcherManager {
  readonly #cfg: ReplicaFetcherConfig;
  readonly #log: Logger;
  readonly #fetchers = new Map<number, ReplicaFetcherThread>();
  readonly #lookup: (topic: string, partition: number) => Partition<ReplicaLog> | undefined;
  readonly #onAppended: (p: Partition<ReplicaLog>) => void;
  readonly #onLogStartOffsetIncremented: (p: Partition<ReplicaLog>) => void;
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  /**
   * The memory of the leaders' large Fetch responses, reused: a follower has written a response's records to its
   * log before it reads the next one, so a buffer goes back once its response is processed. Without it every
   * response of a megabyte is fresh memory, whose pages the kernel faults in and zeroes as the socket fills them.
   */
  readonly responseBuffers = new ReadBufferPool({ maxPooledBytes: 32 * 1024 * 1024 });
  #stopped = false;

  constructor(
    cfg: ReplicaFetcherConfig,
    log: Logger,
    lookup: (topic: string, partition: number) => Partition<ReplicaLog> | undefined,
    onAppended: (p: Partition<ReplicaLog>) => void,
    onLogStartOffsetIncremented: (p: Partition<ReplicaLog>) => void = () => {},
  ) {
    this.#cfg = cfg;
    this.#log = log;
    this.#lookup = lookup;
    this.#onAppended = onAppended;
    this.#onLogStartOffsetIncremented = onLogStartOffsetIncremented;
  }

  /** Starts following `partitions` from `leader`, truncating first (KIP-101). */
  addFetcherForPartitions(leader: LeaderEndpoint, partitions: Partition<ReplicaLog>[]): void {
    if (this.#stopped) return;
    let fetcher = this.#fetchers.get(leader.brokerId);
    if (fetcher && (fetcher.opts.source.host !== leader.host || fetcher.opts.source.port !== leader.port)) {
      void this.#stopFetcher(leader.brokerId);
      fetcher = undefined;
    }
    if (!fetcher) {
      fetcher = new ReplicaFetcherThread(
        {
          name: `ReplicaFetcherThread-0-${leader.brokerId}`,
          source: leader,
          clientId: `broker-${this.#cfg.brokerId}-fetcher-0`,
          connect: this.#cfg.connect,
          replicaId: this.#cfg.brokerId,
          maxWaitMs: this.#cfg.maxWaitMs,
          minBytes: this.#cfg.minBytes,
          maxBytes: this.#cfg.maxBytes * 10,
          partitionMaxBytes: this.#cfg.maxBytes,
          backoffMs: this.#cfg.backoffMs,
          requestTimeoutMs: this.#cfg.requestTimeoutMs,
          ...(this.#cfg.security ? { security: this.#cfg.security } : {}),
          responseBuffers: this.responseBuffers,
          logger: this.#log,
        },
        {
          partition: this.#lookup,
          onAppended: this.#onAppended,
          onLogStartOffsetIncremented: this.#onLogStartOffsetIncremented,
          onPartitionsFailed: (states, code) => this.#retryLater(leader, states, code),
        },
      );
      this.#fetchers.set(leader.brokerId, fetcher);
      fetcher.start();
    }
    fetcher.addPartitions(
      partitions.map((p) => ({ topic: p.topic, partition: p.partition, fetchOffset: p.logEndOffset, currentLeaderEpoch: p.leaderEpoch, truncating: true })),
    );
  }

  /** The leader could not serve them yet (it may not have applied its LeaderAndIsr): try again after a backoff. */
  #retryLater(leader: LeaderEndpoint, states: PartitionFetchState[], errorCode: number): void {
    this.#log.debug({ leader: leader.brokerId, partitions: states.length, errorCode }, 'follower fetch refused; retrying later');
    const timer = setTimeout(() => {
      this.#retryTimers.delete(timer);
      const still = states
        .map((s) => this.#lookup(s.topic, s.partition))
        .filter((p): p is Partition<ReplicaLog> => !!p && !p.isLeader && p.leaderReplicaId === leader.brokerId && p.leaderEpoch === states.find((s) => s.topic === p.topic && s.partition === p.partition)!.currentLeaderEpoch);
      if (still.length > 0) this.addFetcherForPartitions(leader, still);
    }, this.#cfg.backoffMs);
    this.#retryTimers.add(timer);
  }

  removeFetcherForPartitions(tps: { topic: string; partition: number }[]): void {
    for (const f of this.#fetchers.values()) f.removePartitions(tps);
  }

  /** Stops fetchers that no longer have partitions. */
  async shutdownIdleFetcherThreads(): Promise<void> {
    for (const [id, f] of [...this.#fetchers]) if (f.partitionCount === 0) await this.#stopFetcher(id);
  }

  async #stopFetcher(id: number): Promise<void> {
    const f = this.#fetchers.get(id);
    this.#fetchers.delete(id);
    await f?.shutdown();
  }

  fetchers(): ReplicaFetcherThread[] {
    return [...this.#fetchers.values()];
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#retryTimers) clearTimeout(t);
    this.#retryTimers.clear();
    await Promise.all([...this.#fetchers.keys()].map((id) => this.#stopFetcher(id)));
  }
}
