import { backoffMs, sleep, type Logger } from '@gregor/common';
import type { KafkaZkClient, ZkWatcher } from '@gregor/zookeeper';
import { assign } from './assignors.js';
import type { ChunkQueue } from './chunk-queue.js';
import type { ConsumerConfig } from './consumer-config.js';
import { ConsumerRebalanceFailedError } from './consumer-errors.js';
import type { ConsumerFetcherManager } from './consumer-fetcher-manager.js';
import { consumersPerTopic, myTopicThreadIds, partitionsOfTopic, registeredBrokers } from './group-state.js';
import type { OffsetStore } from './offset-store.js';
import { PartitionTopicInfo } from './partition-topic-info.js';
import { threadIdString, type TopicCount } from './topic-count.js';
import type { WatchSet } from './watch-set.js';

/** What the rebalancer needs from its connector. */
export interface RebalancerHost {
  readonly config: ConsumerConfig;
  readonly zk: KafkaZkClient;
  readonly fetcherManager: ConsumerFetcherManager;
  readonly offsetStore: OffsetStore;
  readonly log: Logger;
  /** Null until createMessageStreams: nothing to rebalance before. */
  topicCount(): TopicCount | null;
  queueFor(topic: string, threadId: number): ChunkQueue;
  /** Clears every stream's queue and current chunk. */
  clearStreams(): void;
  /** Commits the consumed offsets of the partitions still owned (auto-commit before releasing them). */
  commitOffsets(isAutoCommit: boolean): Promise<void>;
  /** The partitions this consumer owns now (the "topic registry"). */
  topicRegistry: Map<string, PartitionTopicInfo>;
  /** The topics the subscription matched at the last assignment (wildcards compare new topic lists with it). */
  subscribedTopics: ReadonlySet<string>;
  /** Watches of the rebalance triggers, armed once each until they fire. */
  watches: WatchSet;
  membershipWatcher: ZkWatcher;
  topicWatcher: ZkWatcher;
  brokersWatcher: ZkWatcher;
  allTopicsWatcher: ZkWatcher;
}

/** Quiet time after an event before rebalancing, so a burst of membership events costs one rebalance. */
const DEBOUNCE_MS = 100;

/**
 * Kafka's ZKRebalancerListener: a watch sets a flag; the `<consumerId>_watcher_executor` loop (an owned
 * async loop that also wakes once a second) runs `syncedRebalance` — bounded attempts, each: stop
 * fetchers and clear queues, commit, release owned partitions, assign, read offsets, claim owners (any
 * conflict fails the attempt), restart fetchers; between attempts a jittered backoff.
 */
export class ZKRebalancerListener {
  readonly #host: RebalancerHost;
  #triggered = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #stopped = false;
  readonly #abort = new AbortController();
  #running: Promise<void> = Promise.resolve();
  #retryTimer: NodeJS.Timeout | undefined;
  /** Completed rebalances, failed syncedRebalance runs, and the last failure. */
  rebalanceCount = 0;
  failedRebalances = 0;
  lastError: Error | null = null;

  constructor(host: RebalancerHost) {
    this.#host = host;
  }

  /** A watch fired (or the session was renewed): rebalance soon. */
  trigger(reason: string): void {
    if (this.#stopped) return;
    this.#host.log.info({ reason }, 'rebalance triggered');
    this.#triggered = true;
    this.#wake?.();
  }

  start(): void {
    this.#loop ??= this.#watcherExecutor();
  }

  /** Stops the loop after the rebalance in progress (shutdown holds this "rebalance lock"). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#abort.abort();
    this.#wake?.();
    await this.#loop;
    await this.#running;
  }

  /** Runs one syncedRebalance now (createMessageStreams waits for the first); a failure also schedules a retry. */
  syncedRebalance(): Promise<void> {
    const run = this.#running.then(() => this.#syncedRebalance());
    this.#running = run.catch((error: unknown) => this.#retryLater(error));
    return run;
  }

  async #watcherExecutor(): Promise<void> {
    while (!this.#stopped) {
      if (!this.#triggered) await this.#idle(1000);
      if (this.#stopped || !this.#triggered) continue;
      await this.#idle(DEBOUNCE_MS); // collect the rest of the burst
      if (this.#stopped) break;
      this.#triggered = false;
      await this.syncedRebalance().catch(() => {}); // a failure schedules its own retry
    }
  }

  /**
   * Kafka's executor gave up until the next ZooKeeper event, leaving the member without partitions;
   * we try again after a longer jittered pause (see docs/consumer-connector.md).
   */
  #retryLater(error: unknown): void {
    if (this.#stopped) return;
    const pause = backoffMs(0, this.#host.config.rebalanceBackoffMs * 2 + 1000, 30_000);
    this.#host.log.error({ err: (error as Error).message, retryInMs: pause }, 'rebalance failed; trying again later');
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.trigger('retry after a failed rebalance'), pause);
  }

  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      this.#wake = done;
      function done(): void {
        clearTimeout(timer);
        if (self.#wake === done) self.#wake = null;
        resolve();
      }
    });
  }

  async #syncedRebalance(): Promise<void> {
    const host = this.#host;
    const c = host.config;
    if (this.#stopped || !host.topicCount()) return;
    let lastError: unknown;
    for (let attempt = 0; attempt < c.rebalanceMaxRetries; attempt++) {
      if (this.#stopped) return;
      host.log.info({ attempt }, 'begin rebalancing');
      let done = false;
      try {
        done = await this.#rebalance();
      } catch (error) {
        lastError = error;
        host.log.warn({ attempt, err: (error as Error).message }, 'exception during rebalance');
      }
      if (done) {
        this.rebalanceCount++;
        this.lastError = null;
        host.log.info({ attempt, owned: [...host.topicRegistry.keys()] }, 'end rebalancing');
        return;
      }
      // Let go of everything and back off; jittered so members of a group do not retry in step.
      await this.#closeFetchers(false);
      if (attempt + 1 < c.rebalanceMaxRetries) await sleep(backoffMs(0, 2 * c.rebalanceBackoffMs, 2 * c.rebalanceBackoffMs), this.#abort.signal);
    }
    this.failedRebalances++;
    const error = new ConsumerRebalanceFailedError(c.consumerId, c.rebalanceMaxRetries, { cause: lastError });
    this.lastError = error;
    throw error;
  }

  /** Stops fetching and clears what was fetched but not consumed; commits first if auto-commit is on. */
  async #closeFetchers(commit: boolean): Promise<void> {
    const host = this.#host;
    await host.fetcherManager.stopConnections();
    host.clearStreams();
    if (commit && host.config.autoCommitEnable) {
      await host.commitOffsets(true).catch((error: unknown) => host.log.warn({ err: (error as Error).message }, 'commit before rebalance failed'));
    }
  }

  async #release(): Promise<void> {
    const host = this.#host;
    const owned = [...host.topicRegistry.values()];
    await Promise.all(owned.map((i) => host.zk.releasePartition(host.config.groupId, i.topic, i.partition)));
    host.topicRegistry = new Map();
  }

  /** One attempt; false when a claim conflicted (the previous owner has not released yet). */
  async #rebalance(): Promise<boolean> {
    const host = this.#host;
    const c = host.config;
    const zk = host.zk;
    const count = host.topicCount()!;

    // 1. No brokers: wait for one (watch /brokers/ids) without touching what we own.
    const brokers = await registeredBrokers(zk);
    if (brokers.length === 0 && (await host.watches.read('brokers', host.brokersWatcher, (w) => registeredBrokers(zk, w))).length === 0) {
      host.log.warn('no brokers registered in ZooKeeper: waiting for one before rebalancing');
      return true;
    }
    // 2–4. Stop fetchers, clear queues, commit, release.
    await this.#closeFetchers(true);
    await this.#release();

    // 5. Assign: every member's threads per topic, our topics' partitions.
    const allTopics = count.pattern === 'static' ? await zk.getAllTopics() : await host.watches.read('topics', host.allTopicsWatcher, (w) => zk.getAllTopics(w));
    const mine = myTopicThreadIds(count, allTopics, c.excludeInternalTopics);
    const { consumersForTopic } = await host.watches.read('ids', host.membershipWatcher, (w) => consumersPerTopic(zk, c.groupId, allTopics, c.excludeInternalTopics, w));
    const topics = [...mine.keys()];
    host.subscribedTopics = new Set(topics);
    const partitions = await Promise.all(topics.map((t) => host.watches.read(`topic:${t}`, host.topicWatcher, (w) => partitionsOfTopic(zk, t, w))));
    const partitionsForTopic = new Map(topics.map((t, i) => [t, partitions[i]!]));
    const assignment = assign(c.partitionAssignmentStrategy, { consumersForTopic, partitionsForTopic }).filter((a) => a.owner.consumerId === c.consumerId);

    // 6–7. Starting offsets, new PartitionTopicInfos.
    const offsets = await host.offsetStore.fetch(c.groupId, assignment);
    const infos = assignment.map((a) => {
      const offset = offsets.get(`${a.topic}-${a.partition}`) ?? -1;
      return { info: new PartitionTopicInfo(a.topic, a.partition, host.queueFor(a.topic, a.owner.threadId), offset, c.fetchMessageMaxBytes), owner: threadIdString(a.owner) };
    });

    // 8. Claim every owner node; a conflict undoes our claims and fails the attempt.
    const claimed = await Promise.all(infos.map(({ info, owner }) => zk.claimPartition(c.groupId, info.topic, info.partition, owner)));
    if (claimed.some((ok) => !ok)) {
      const conflicts = infos.filter((_, i) => !claimed[i]).map(({ info }) => info.key);
      host.log.info({ conflicts }, 'partitions still owned by others: attempt failed');
      await Promise.all(infos.filter((_, i) => claimed[i]).map(({ info }) => zk.releasePartition(c.groupId, info.topic, info.partition)));
      return false;
    }
    // 9. Install the registry and start fetching.
    host.topicRegistry = new Map(infos.map(({ info }) => [info.key, info]));
    host.fetcherManager.startConnections(infos.map(({ info }) => info));
    return true;
  }
}
