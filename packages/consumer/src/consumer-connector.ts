import { createLogger, sleep, validateTopicName, type Logger } from '@gregor/common';
import { KafkaZkClient, ZkSession, type ZkClient, type ZkWatcher } from '@gregor/zookeeper';
import { consumerConfig, type ConsumerConfig, type ConsumerProperties } from './consumer-config.js';
import { ConsumerStateError } from './consumer-errors.js';
import { ConsumerFetcherManager, type FetcherView } from './consumer-fetcher-manager.js';
import { SHUTDOWN_COMMAND } from './fetched-data-chunk.js';
import { registeredBrokers } from './group-state.js';
import { KafkaStream } from './kafka-stream.js';
import { DualCommitOffsetStore } from './dual-commit-offset-store.js';
import { OffsetManagerStore } from './offset-manager-store.js';
import { ZooKeeperOffsetStore, type OffsetStore } from './offset-store.js';
import type { PartitionTopicInfo } from './partition-topic-info.js';
import { registrationOf, topicFilterRegex, type TopicCount, type TopicFilter } from './topic-count.js';
import { allTopicsWatcher, brokersWatcher, membershipWatcher, topicPartitionChangeWatcher } from './zk-listeners.js';
import { WatchSet } from './watch-set.js';
import { ZKRebalancerListener, type RebalancerHost } from './zk-rebalancer-listener.js';

export interface ConnectorOptions {
  logger?: Logger;
  /** Overrides the store chosen by `offsets.storage` and `dual.commit.enabled` (the caller closes it). */
  offsetStore?: OffsetStore;
}

/** One owned partition, as `ownedPartitions()` reports it. */
export interface OwnedPartition {
  topic: string;
  partition: number;
  /** `<consumerId>-<stream index>` */
  owner: string;
  consumedOffset: number;
  fetchedOffset: number;
  /** The leader's high watermark at the last fetch, -1 before one. */
  highWatermark: number;
  /** highWatermark - consumedOffset, or null while either is unknown. */
  lag: number | null;
  /** Messages handed out since this consumer took the partition. */
  consumed: number;
  /** The broker fetched from now, -1 while the leader finder looks for one or the queue is full. */
  fetchingFrom: number;
}

export interface ConnectorStats {
  consumerId: string;
  groupId: string;
  rebalances: number;
  failedRebalances: number;
  lastRebalanceError: string | null;
  commits: number;
  /** Times a partition was handed to a fetcher (a leader move adds one per partition, without a rebalance). */
  fetcherAssignments: number;
  fetchers: FetcherView[];
  noLeaderPartitions: string[];
  /** Record bytes queued in the streams, not yet handed out. */
  queuedBytes: number;
  queuedChunks: number;
}

/** Kafka's ConsumerConnector trait: what an application uses, whatever keeps the group together. */
export interface ConsumerConnector {
  createMessageStreams(topicCountMap: Readonly<Record<string, number>>): Promise<Record<string, KafkaStream[]>>;
  createMessageStreamsByFilter(filter: TopicFilter, numStreams?: number): Promise<KafkaStream[]>;
  commitOffsets(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Kafka's ZookeeperConsumerConnector: registers the consumer under /consumers/<group>/ids, balances the
 * group's partitions among the members through ZooKeeper (owners as ephemeral znodes), fetches owned
 * partitions from their leaders into bounded stream queues, and stores consumed offsets
 * (`offsets.storage`). Create with `ZookeeperConsumerConnector.create(config)`.
 */
export class ZookeeperConsumerConnector implements ConsumerConnector {
  readonly config: ConsumerConfig;
  readonly log: Logger;
  readonly #session: ZkSession;
  readonly zk: KafkaZkClient;
  readonly fetcherManager: ConsumerFetcherManager;
  readonly offsetStore: OffsetStore;
  readonly #ownsOffsetStore: boolean;
  readonly #rebalancer: ZKRebalancerListener;
  #topicCount: TopicCount | null = null;
  #staticStreams = new Map<string, KafkaStream[]>();
  #wildcardStreams: KafkaStream[] = [];
  topicRegistry = new Map<string, PartitionTopicInfo>();
  readonly #checkpointed = new Map<string, number>();
  #autoCommitTimer: NodeJS.Timeout | null = null;
  #shutdown: Promise<void> | null = null;
  #firstSession = true;
  readonly #watches = new WatchSet();
  #subscribedTopics: ReadonlySet<string> = new Set();
  commits = 0;

  private constructor(config: ConsumerConfig, session: ZkSession, options: ConnectorOptions, log: Logger) {
    this.config = config;
    this.log = log;
    this.#session = session;
    this.zk = new KafkaZkClient(session);
    this.#ownsOffsetStore = !options.offsetStore;
    this.offsetStore = options.offsetStore ?? this.#chooseOffsetStore();
    this.fetcherManager = new ConsumerFetcherManager(config.consumerId, config, () => registeredBrokers(this.zk), log);
    this.#rebalancer = new ZKRebalancerListener(this.#rebalancerHost());
  }

  /** Connects to ZooKeeper and starts auto-commit; streams come from createMessageStreams. */
  static async create(config: ConsumerConfig | ConsumerProperties, options: ConnectorOptions = {}): Promise<ZookeeperConsumerConnector> {
    const c = isConsumerConfig(config) ? config : consumerConfig(config);
    const log = (options.logger ?? createLogger('consumer')).child({ consumerId: c.consumerId });
    const session = new ZkSession({
      connectString: c.zookeeperConnect,
      sessionTimeoutMs: c.zookeeperSessionTimeoutMs,
      connectTimeoutMs: c.zookeeperConnectionTimeoutMs,
      logger: log,
    });
    const connector = new ZookeeperConsumerConnector(c, session, options, log);
    session.onNewSession((client) => connector.#onNewSession(client));
    session.on('newSession', () => connector.#afterNewSession());
    await session.start();
    connector.#scheduleAutoCommit();
    return connector;
  }

  get consumerId(): string {
    return this.config.consumerId;
  }

  /** The ZooKeeper session (tests break it to exercise the session-expiry path). */
  get session(): ZkSession {
    return this.#session;
  }

  /** `{topic: numStreams}` → each topic's streams; once per connector, as in Kafka. */
  async createMessageStreams(topicCountMap: Readonly<Record<string, number>>): Promise<Record<string, KafkaStream[]>> {
    const topics = Object.entries(topicCountMap);
    if (topics.length === 0) throw new ConsumerStateError('createMessageStreams needs at least one topic');
    for (const [topic, n] of topics) {
      validateTopicName(topic);
      if (!Number.isInteger(n) || n < 1) throw new ConsumerStateError(`the stream count of topic "${topic}" must be a positive integer, got ${n}`);
    }
    this.#claimStreams({ pattern: 'static', consumerId: this.consumerId, topics: { ...topicCountMap } });
    for (const [topic, n] of topics) this.#staticStreams.set(topic, Array.from({ length: n }, () => this.#newStream()));
    await this.#registerAndRebalance();
    return Object.fromEntries(this.#staticStreams);
  }

  /** Streams over every topic the filter allows (now and later), each stream fed by several topics. */
  async createMessageStreamsByFilter(filter: TopicFilter, numStreams = 1): Promise<KafkaStream[]> {
    topicFilterRegex(filter); // a bad regex fails here, not inside a watcher
    if (!Number.isInteger(numStreams) || numStreams < 1) throw new ConsumerStateError(`numStreams must be a positive integer, got ${numStreams}`);
    this.#claimStreams({ pattern: filter.kind, consumerId: this.consumerId, regex: filter.regex, numStreams });
    this.#wildcardStreams = Array.from({ length: numStreams }, () => this.#newStream());
    await this.#registerAndRebalance();
    return [...this.#wildcardStreams];
  }

  /** Commits every owned partition's consumed offset that changed since the last commit. */
  async commitOffsets(): Promise<void> {
    await this.#commit(false);
  }

  /** The partitions this consumer owns now. */
  ownedPartitions(): OwnedPartition[] {
    return [...this.topicRegistry.values()]
      .map((i) => ({
        topic: i.topic,
        partition: i.partition,
        owner: `${this.consumerId}-${this.#threadOf(i)}`,
        consumedOffset: i.consumedOffset,
        fetchedOffset: i.fetchedOffset,
        highWatermark: i.highWatermark,
        lag: i.highWatermark >= 0 && i.consumedOffset >= 0 ? Math.max(0, i.highWatermark - i.consumedOffset) : null,
        consumed: i.consumedCount,
        fetchingFrom: this.fetcherManager.fetchingFrom(i.topic, i.partition),
      }))
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  }

  stats(): ConnectorStats {
    const streams = this.#allStreams();
    return {
      consumerId: this.consumerId,
      groupId: this.config.groupId,
      rebalances: this.#rebalancer.rebalanceCount,
      failedRebalances: this.#rebalancer.failedRebalances,
      lastRebalanceError: this.#rebalancer.lastError?.message ?? null,
      commits: this.commits,
      fetcherAssignments: this.fetcherManager.fetcherAssignments,
      fetchers: this.fetcherManager.fetchers(),
      noLeaderPartitions: this.fetcherManager.noLeaderPartitions(),
      queuedBytes: streams.reduce((sum, s) => sum + s.queue.bytes, 0),
      queuedChunks: streams.reduce((sum, s) => sum + s.queue.size, 0),
    };
  }

  /** Shuts down on the first of these signals; returns the function that removes the handlers. */
  shutdownOnSignals(signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): () => void {
    const handler = (): void => void this.shutdown().catch((error: unknown) => this.log.error({ err: error }, 'shutdown failed'));
    for (const s of signals) process.once(s, handler);
    return () => {
      for (const s of signals) process.removeListener(s, handler);
    };
  }

  /**
   * Kafka's order: stop the rebalance loop (waiting for a rebalance in progress), stop auto-commit,
   * stop fetchers, clear the queues and end every stream, commit (with auto-commit), release the owned
   * partitions, close the ZooKeeper session (the member's znode vanishes: the others rebalance).
   * Idempotent: later calls wait for the first.
   */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#doShutdown();
    return this.#shutdown;
  }

  get isShutdown(): boolean {
    return this.#shutdown !== null;
  }

  async #doShutdown(): Promise<void> {
    this.log.info('shutting down');
    await this.#rebalancer.stop();
    if (this.#autoCommitTimer) clearTimeout(this.#autoCommitTimer);
    this.#autoCommitTimer = null;
    await this.fetcherManager.stopConnections();
    for (const s of this.#allStreams()) {
      s.queue.clear();
      s.queue.put(SHUTDOWN_COMMAND);
    }
    if (this.config.autoCommitEnable) await this.#commit(true);
    if (this.#session.healthy) {
      await Promise.all([...this.topicRegistry.values()].map((i) => this.zk.releasePartition(this.config.groupId, i.topic, i.partition).catch(() => {})));
    }
    this.topicRegistry = new Map();
    await this.fetcherManager.shutdown();
    await this.#session.close();
    if (this.#ownsOffsetStore) await this.offsetStore.close?.();
    this.log.info('shut down');
  }

  // ---- registration and sessions ---------------------------------------------------------------------

  #claimStreams(count: TopicCount): void {
    if (this.#shutdown) throw new ConsumerStateError('the connector is shut down');
    if (this.#topicCount) throw new ConsumerStateError('this connector already created its message streams (once per connector, as in Kafka)');
    this.#topicCount = count;
  }

  async #registerAndRebalance(): Promise<void> {
    await this.#register(this.#session.client);
    this.#rebalancer.start();
    await this.#rebalancer.syncedRebalance();
  }

  async #register(client: ZkClient): Promise<void> {
    if (!this.#topicCount) return;
    await new KafkaZkClient(client).registerConsumer(this.config.groupId, this.consumerId, registrationOf(this.#topicCount));
  }

  /** Runs inside every new session before it is used (ZKSessionExpireListener's re-registration). */
  async #onNewSession(client: ZkClient): Promise<void> {
    if (this.#firstSession || this.#shutdown) return;
    // The old session's owner znodes and watches are gone with it: forget them without releasing.
    this.topicRegistry = new Map();
    this.#watches.reset();
    await this.#register(client);
  }

  #afterNewSession(): void {
    if (this.#firstSession) {
      this.#firstSession = false;
      return;
    }
    this.#rebalancer.trigger('new ZooKeeper session');
  }

  // ---- offsets -------------------------------------------------------------------------------------

  /** offsets.storage=zookeeper; kafka: the offset manager, plus ZooKeeper with dual.commit.enabled. */
  #chooseOffsetStore(): OffsetStore {
    const c = this.config;
    const zookeeper = new ZooKeeperOffsetStore(this.zk);
    if (c.offsetsStorage === 'zookeeper') return zookeeper;
    const kafka = new OffsetManagerStore({
      brokers: () => registeredBrokers(this.zk),
      clientId: c.clientId,
      socketTimeoutMs: c.offsetsChannelSocketTimeoutMs,
      backoffMs: c.offsetsChannelBackoffMs,
      stopped: () => this.isShutdown,
      log: this.log,
    });
    return c.dualCommitEnabled ? new DualCommitOffsetStore(kafka, zookeeper) : kafka;
  }

  #scheduleAutoCommit(): void {
    if (!this.config.autoCommitEnable) return;
    this.#autoCommitTimer = setTimeout(async () => {
      await this.#commit(true);
      if (this.#autoCommitTimer) this.#scheduleAutoCommit();
    }, this.config.autoCommitIntervalMs);
  }

  async #commit(isAutoCommit: boolean): Promise<void> {
    const changed = [...this.topicRegistry.values()]
      .filter((i) => i.consumedOffset >= 0 && this.#checkpointed.get(i.key) !== i.consumedOffset)
      .map((i) => ({ topic: i.topic, partition: i.partition, offset: i.consumedOffset }));
    if (changed.length === 0) return;
    const attempts = isAutoCommit ? 1 : 1 + this.config.offsetsCommitMaxRetries;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.offsetStore.commit(this.config.groupId, changed);
        for (const o of changed) this.#checkpointed.set(`${o.topic}-${o.partition}`, o.offset);
        this.commits++;
        return;
      } catch (error) {
        if (attempt >= attempts) {
          if (isAutoCommit) {
            this.log.warn({ err: (error as Error).message }, 'auto-commit failed');
            return;
          }
          throw error;
        }
        this.log.debug({ attempt, err: (error as Error).message }, 'offset commit failed; retrying');
        await sleep(this.offsetStore.name === 'kafka' ? this.config.offsetsChannelBackoffMs : Math.min(1000, 100 * attempt));
      }
    }
  }

  // ---- streams -------------------------------------------------------------------------------------

  #newStream(): KafkaStream {
    return new KafkaStream(this.config.queuedMaxMessageChunks, this.config.consumerTimeoutMs, this.log);
  }

  #allStreams(): KafkaStream[] {
    return [...[...this.#staticStreams.values()].flat(), ...this.#wildcardStreams];
  }

  #streamFor(topic: string, threadId: number): KafkaStream {
    const stream = this.#topicCount?.pattern === 'static' ? this.#staticStreams.get(topic)?.[threadId] : this.#wildcardStreams[threadId];
    if (!stream) throw new ConsumerStateError(`no stream ${threadId} for topic ${topic}`);
    return stream;
  }

  #threadOf(info: PartitionTopicInfo): number {
    const streams = this.#topicCount?.pattern === 'static' ? (this.#staticStreams.get(info.topic) ?? []) : this.#wildcardStreams;
    return streams.findIndex((s) => s.queue === info.queue);
  }

  #rebalancerHost(): RebalancerHost {
    const self = this;
    const target = { trigger: (reason: string) => this.#rebalancer.trigger(reason), log: this.log };
    const allTopics: ZkWatcher = allTopicsWatcher(
      target,
      (read) => this.#watches.read('topics', allTopics, read),
      () => this.zk,
      () => this.#topicCount,
      this.config.excludeInternalTopics,
      () => this.#subscribedTopics,
    );
    return {
      config: this.config,
      zk: this.zk,
      fetcherManager: this.fetcherManager,
      offsetStore: this.offsetStore,
      log: this.log,
      topicCount: () => this.#topicCount,
      queueFor: (topic, threadId) => this.#streamFor(topic, threadId).queue,
      clearStreams: () => {
        for (const s of this.#allStreams()) {
          s.queue.clear();
          s.clear();
        }
      },
      commitOffsets: (isAutoCommit) => this.#commit(isAutoCommit),
      get topicRegistry() {
        return self.topicRegistry;
      },
      set topicRegistry(value) {
        self.topicRegistry = value;
      },
      get subscribedTopics() {
        return self.#subscribedTopics;
      },
      set subscribedTopics(value) {
        self.#subscribedTopics = value;
      },
      watches: this.#watches,
      membershipWatcher: membershipWatcher(target),
      topicWatcher: topicPartitionChangeWatcher(target),
      brokersWatcher: brokersWatcher(target),
      allTopicsWatcher: allTopics,
    };
  }
}

function isConsumerConfig(c: ConsumerConfig | ConsumerProperties): c is ConsumerConfig {
  return typeof (c as ConsumerConfig).groupId === 'string' && typeof (c as ConsumerConfig).consumerId === 'string';
}
