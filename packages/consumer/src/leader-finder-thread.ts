import { ErrorCode, sleep, type Logger } from '@gregor/common';
import { NetworkError, type ConnectionPool } from '@gregor/net';
import { Metadata } from '@gregor/protocol';

export interface BrokerEndpoint {
  brokerId: number;
  host: string;
  port: number;
}

export interface PartitionLeader {
  topic: string;
  partition: number;
  leader: BrokerEndpoint;
}

export interface LeaderFinderHooks {
  /** Partitions waiting for a leader (taken out of the set by the thread when it finds one). */
  takeNoLeaderPartitions(): { topic: string; partition: number }[];
  /** Puts partitions back (no leader yet, or adding them to a fetcher failed). */
  returnNoLeaderPartitions(tps: { topic: string; partition: number }[]): void;
  waitForNoLeaderPartitions(signal: AbortSignal): Promise<void>;
  brokers(): Promise<BrokerEndpoint[]>;
  addFetchers(leaders: PartitionLeader[]): void;
  shutdownIdleFetchers(): Promise<void>;
}

/**
 * Kafka's LeaderFinderThread as an owned async loop: waits until some partitions have no fetcher,
 * asks the brokers registered in ZooKeeper for their leaders, hands each found leader's partitions to
 * a fetcher, closes idle fetchers, and backs off `refresh.leader.backoff.ms`. `stop()` ends it.
 */
export class LeaderFinderThread {
  readonly #hooks: LeaderFinderHooks;
  readonly #pool: ConnectionPool;
  readonly #backoffMs: number;
  readonly #log: Logger;
  readonly #abort = new AbortController();
  #loop: Promise<void> | null = null;

  constructor(hooks: LeaderFinderHooks, pool: ConnectionPool, refreshLeaderBackoffMs: number, log: Logger) {
    this.#hooks = hooks;
    this.#pool = pool;
    this.#backoffMs = refreshLeaderBackoffMs;
    this.#log = log;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      await this.#hooks.waitForNoLeaderPartitions(signal);
      if (signal.aborted) break;
      const wanted = this.#hooks.takeNoLeaderPartitions();
      let found: PartitionLeader[] = [];
      try {
        const brokers = await this.#hooks.brokers();
        const topics = [...new Set(wanted.map((tp) => tp.topic))];
        const leaders = await findLeaders(this.#pool, brokers, topics, this.#log);
        const wantedKeys = new Set(wanted.map((tp) => `${tp.topic}-${tp.partition}`));
        found = leaders.filter((l) => wantedKeys.has(`${l.topic}-${l.partition}`));
      } catch (error) {
        this.#log.warn({ err: (error as Error).message }, 'failed to find leaders');
      }
      if (signal.aborted) {
        this.#hooks.returnNoLeaderPartitions(wanted);
        break;
      }
      const foundKeys = new Set(found.map((l) => `${l.topic}-${l.partition}`));
      const missing = wanted.filter((tp) => !foundKeys.has(`${tp.topic}-${tp.partition}`));
      try {
        this.#hooks.addFetchers(found);
      } catch (error) {
        this.#log.warn({ err: (error as Error).message }, 'failed to add fetchers');
        missing.push(...found.map((l) => ({ topic: l.topic, partition: l.partition })));
      }
      this.#hooks.returnNoLeaderPartitions(missing);
      await this.#hooks.shutdownIdleFetchers();
      await sleep(this.#backoffMs, signal);
    }
  }
}

/**
 * Leaders of the partitions of `topics` that have one (partitions without a leader are left out),
 * from the brokers registered in ZooKeeper tried in random order until one answers (Kafka's
 * ClientUtils.fetchTopicMetadata). The connections stay in `pool` between calls.
 */
export async function findLeaders(pool: ConnectionPool, brokers: readonly BrokerEndpoint[], topics: readonly string[], log: Logger): Promise<PartitionLeader[]> {
  let lastError: unknown = new NetworkError('no broker registered in ZooKeeper');
  for (const broker of shuffle([...brokers])) {
    try {
      const response = await pool.get(broker.brokerId, broker).send(Metadata, { topics: topics.map((name) => ({ name })), allowAutoTopicCreation: false });
      const endpoints = new Map(response.brokers.map((b) => [b.nodeId, { brokerId: b.nodeId, host: b.host, port: b.port }]));
      const out: PartitionLeader[] = [];
      for (const t of response.topics) {
        for (const p of t.partitions) {
          const leader = endpoints.get(p.leaderId);
          if (p.errorCode === ErrorCode.NONE && leader) out.push({ topic: t.name, partition: p.partitionIndex, leader });
        }
      }
      return out;
    } catch (error) {
      log.debug({ broker: broker.brokerId, err: (error as Error).message }, 'metadata request failed, trying another broker');
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new NetworkError(String(lastError));
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
