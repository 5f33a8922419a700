import { ErrorCode, GregorError, KafkaProtocolError, silentLogger, type Logger } from '@gregor/common';
import { Metadata, type ApiDefinition, type MetadataRequest, type MetadataResponse } from '@gregor/protocol';
import { parseBrokerList, requireNonNegativeInt, type BrokerAddress, type ClientConfig } from './config.js';
import { ClientClosedError, ConnectionPool, NetworkError, retry, type Connection, type RetryOptions, type SendOptions } from '@gregor/net';

export interface BrokerMetadata {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface PartitionMetadata {
  partition: number;
  errorCode: number;
  /** -1 while no leader is elected. */
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
}

export interface TopicMetadata {
  name: string;
  errorCode: number;
  isInternal: boolean;
  /** Sorted by partition index. */
  partitions: PartitionMetadata[];
}

export interface ClusterMetadata {
  clusterId: string | null;
  controllerId: number;
  brokers: BrokerMetadata[];
  topics: TopicMetadata[];
}

/**
 * A client's view of the cluster: bootstrap, cached metadata (brokers, controller, topic →
 * partitions) and one pooled connection per broker. Producer, Consumer and Admin build on it.
 */
export class KafkaClient {
  readonly clientId: string;
  readonly retryOptions: RetryOptions;
  readonly requestTimeoutMs: number;
  readonly logger: Logger;
  readonly #bootstrap: BrokerAddress[];
  readonly #metadataMaxAgeMs: number;
  #brokers = new Map<number, BrokerMetadata>();
  #topics = new Map<string, TopicMetadata>();
  #controllerId = -1;
  #clusterId: string | null = null;
  #refreshedAt = 0;
  /** One connection per broker id, and per bootstrap address. */
  readonly #pool: ConnectionPool;
  readonly #refreshing = new Map<string, Promise<ClusterMetadata>>();
  #closed = false;

  constructor(config: ClientConfig) {
    this.#bootstrap = parseBrokerList(config.brokers);
    this.clientId = config.clientId ?? 'gregor';
    const connectTimeoutMs = requireNonNegativeInt('connectTimeoutMs', config.connectTimeoutMs, 10_000);
    this.requestTimeoutMs = requireNonNegativeInt('requestTimeoutMs', config.requestTimeoutMs, 30_000);
    this.#metadataMaxAgeMs = requireNonNegativeInt('metadataMaxAgeMs', config.metadataMaxAgeMs, 300_000);
    this.retryOptions = {
      retries: requireNonNegativeInt('retries', config.retries, 5),
      retryBackoffMs: requireNonNegativeInt('retryBackoffMs', config.retryBackoffMs, 100),
      retryBackoffMaxMs: requireNonNegativeInt('retryBackoffMaxMs', config.retryBackoffMaxMs, 1000),
    };
    this.logger = config.logger ?? silentLogger();
    this.#pool = new ConnectionPool({
      clientId: this.clientId,
      connectTimeoutMs,
      requestTimeoutMs: this.requestTimeoutMs,
      ...(config.security ? { security: config.security } : {}),
      logger: this.logger,
    });
  }

  /** Bootstraps: fetches the metadata of the whole cluster. */
  async connect(): Promise<ClusterMetadata> {
    return this.refreshMetadata();
  }

  get clusterId(): string | null {
    return this.#clusterId;
  }

  get controllerId(): number {
    return this.#controllerId;
  }

  brokers(): BrokerMetadata[] {
    return [...this.#brokers.values()];
  }

  broker(nodeId: number): BrokerMetadata | undefined {
    return this.#brokers.get(nodeId);
  }

  /** The cached metadata of a topic (undefined when unknown or not fetched yet). */
  topic(name: string): TopicMetadata | undefined {
    return this.#topics.get(name);
  }

  topics(): TopicMetadata[] {
    return [...this.#topics.values()];
  }

  get metadataAgeMs(): number {
    return Date.now() - this.#refreshedAt;
  }

  /**
   * Fetches metadata for `topics` (all topics when omitted) from any reachable broker, retrying
   * retriable failures, and updates the cache. Concurrent identical refreshes share one request.
   */
  refreshMetadata(topics?: readonly string[]): Promise<ClusterMetadata> {
    const key = topics === undefined ? '*' : [...topics].sort().join('\0');
    let pending = this.#refreshing.get(key);
    if (!pending) {
      pending = retry(() => this.#fetchMetadata(topics), this.retryOptions).finally(() => this.#refreshing.delete(key));
      this.#refreshing.set(key, pending);
    }
    return pending;
  }

  /** Refreshes when a topic is missing from the cache or the cache is older than metadataMaxAgeMs. */
  async ensureTopics(topics: readonly string[]): Promise<void> {
    const stale = this.metadataAgeMs >= this.#metadataMaxAgeMs;
    if (stale || topics.some((t) => !this.#topics.has(t))) await this.refreshMetadata(topics);
  }

  async #fetchMetadata(topics: readonly string[] | undefined): Promise<ClusterMetadata> {
    this.#assertOpen();
    const request: MetadataRequest = {
      topics: topics === undefined ? null : topics.map((name) => ({ name })),
      allowAutoTopicCreation: false,
    };
    let lastError: unknown;
    for (const connection of this.#metadataCandidates()) {
      try {
        const response = await (await connection()).send(Metadata, request);
        return this.#apply(response, topics);
      } catch (error) {
        if (!(error instanceof GregorError) || !error.retriable) throw error;
        lastError = error;
      }
    }
    throw lastError instanceof GregorError ? lastError : new NetworkError('no broker reachable for metadata');
  }

  /** Known brokers first (in random order, to spread load), then the bootstrap list. */
  *#metadataCandidates(): Generator<() => Promise<Connection>> {
    const known = shuffle([...this.#brokers.keys()]);
    for (const nodeId of known) yield () => this.connectionTo(nodeId);
    for (const address of this.#bootstrap) yield () => this.#pool.connectByAddress(address);
  }

  #apply(response: MetadataResponse, requested: readonly string[] | undefined): ClusterMetadata {
    const brokers = new Map<number, BrokerMetadata>();
    for (const b of response.brokers) brokers.set(b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null });
    // A broker that left or moved gets a fresh connection.
    this.#pool.retain((nodeId, connection) => {
      const next = brokers.get(nodeId);
      return next !== undefined && next.host === connection.host && next.port === connection.port;
    });
    this.#brokers = brokers;
    this.#controllerId = response.controllerId ?? -1;
    this.#clusterId = response.clusterId ?? null;

    const topics: TopicMetadata[] = response.topics.map((t) => ({
      name: t.name,
      errorCode: t.errorCode,
      isInternal: t.isInternal ?? false,
      partitions: t.partitions
        .map((p) => ({
          partition: p.partitionIndex,
          errorCode: p.errorCode,
          leader: p.leaderId,
          leaderEpoch: p.leaderEpoch ?? -1,
          replicas: p.replicaNodes,
          isr: p.isrNodes,
          offlineReplicas: p.offlineReplicas ?? [],
        }))
        .sort((a, b) => a.partition - b.partition),
    }));
    if (requested === undefined) this.#topics = new Map();
    for (const t of topics) {
      if (t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || t.errorCode === ErrorCode.INVALID_TOPIC_EXCEPTION) this.#topics.delete(t.name);
      else this.#topics.set(t.name, t);
    }
    this.#refreshedAt = Date.now();
    return { clusterId: this.#clusterId, controllerId: this.#controllerId, brokers: [...brokers.values()], topics };
  }

  /**
   * The leader of a partition, refreshing the topic's metadata once when it is unknown.
   * Throws a retriable KafkaProtocolError while the topic or its leader does not exist yet.
   */
  async leaderFor(topic: string, partition: number): Promise<number> {
    let leader = this.#cachedLeader(topic, partition);
    if (leader < 0) {
      await this.refreshMetadata([topic]);
      leader = this.#cachedLeader(topic, partition);
    }
    if (leader >= 0) return leader;
    const t = this.#topics.get(topic);
    if (!t || !t.partitions.some((p) => p.partition === partition)) {
      throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic-partition ${topic}-${partition}`);
    }
    throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `no leader for ${topic}-${partition}`);
  }

  #cachedLeader(topic: string, partition: number): number {
    const p = this.#topics.get(topic)?.partitions.find((x) => x.partition === partition);
    return p && p.leader >= 0 && this.#brokers.has(p.leader) ? p.leader : -1;
  }

  /** The pooled connection to a broker, opened on first use and replaced once it has failed. */
  async connectionTo(nodeId: number): Promise<Connection> {
    this.#assertOpen();
    const broker = this.#brokers.get(nodeId);
    if (!broker) throw new KafkaProtocolError(ErrorCode.BROKER_NOT_AVAILABLE, `broker ${nodeId} is not in the cluster metadata`);
    return this.#pool.connect(nodeId, broker);
  }

  /** A connection to a broker with this client's settings, outside the pool, for a fetch loop; the caller closes it. */
  dedicatedConnection(address: { host: string; port: number }): Connection {
    this.#assertOpen();
    return this.#pool.openUnpooled(address);
  }

  /** The connection to the current controller, refreshing metadata when it is unknown. */
  async controller(): Promise<Connection> {
    if (this.#controllerId < 0 || !this.#brokers.has(this.#controllerId)) await this.refreshMetadata([]);
    if (this.#controllerId < 0) throw new KafkaProtocolError(ErrorCode.NOT_CONTROLLER, 'the cluster has no controller at the moment');
    return this.connectionTo(this.#controllerId);
  }

  /** Sends to one broker by id. */
  async sendTo<Req, Res>(nodeId: number, api: ApiDefinition<Req, Res>, request: Req, options?: SendOptions): Promise<Res> {
    return (await this.connectionTo(nodeId)).send(api, request, options);
  }

  /** Sends to any live broker (metadata-like requests). */
  async sendToAny<Req, Res>(api: ApiDefinition<Req, Res>, request: Req, options?: SendOptions): Promise<Res> {
    let lastError: unknown;
    for (const connection of this.#metadataCandidates()) {
      try {
        return await (await connection()).send(api, request, options);
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        lastError = error;
      }
    }
    throw lastError ?? new NetworkError('no broker reachable');
  }

  #assertOpen(): void {
    if (this.#closed) throw new ClientClosedError();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool.close();
  }
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
