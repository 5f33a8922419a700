import { sleep, type Logger } from '@gregor/common';
import type { BrokerEndpoint, MetadataChannel, PartitionLeader } from './metadata-channel.js';

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
  readonly #channel: MetadataChannel;
  readonly #backoffMs: number;
  readonly #log: Logger;
  readonly #abort = new AbortController();
  #loop: Promise<void> | null = null;

  constructor(hooks: LeaderFinderHooks, channel: MetadataChannel, refreshLeaderBackoffMs: number, log: Logger) {
    this.#hooks = hooks;
    this.#channel = channel;
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
        const leaders = await this.#channel.leaders(brokers, topics);
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
