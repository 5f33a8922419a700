import { INTERNAL_TOPICS } from '@gregor/common';
import type { KafkaServer, RequestEvent } from '@gregor/broker';
import { ApiKey, type FetchRequest, type FetchResponse, type ProduceRequest, type ProduceResponse } from '@gregor/protocol';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** RecordBatch v2: batchLength at 8 (counts the bytes after offset 12), recordsCount at 57. */
const BATCH_LENGTH_AT = 8;
const RECORDS_COUNT_AT = 57;
const BATCH_HEADER_BYTES = 61;

/** Lag of every partition of every consumer group (committed offset to log end). */
export type GroupLagReader = () => Promise<{ group: string; topic: string; partition: number; lag: number }[]>;

/** Counters since the broker started (Kafka's BytesInPerSec, BytesOutPerSec, MessagesInPerSec, ReplicationBytesOutPerSec totals). */
export interface BrokerTrafficTotals {
  brokerId: number;
  timestampMs: number;
  bytesIn: number;
  bytesOut: number;
  messagesIn: number;
  replicationBytesOut: number;
}

/** Groups read per scrape at most: each costs ZooKeeper reads and ListOffsets. */
export const MAX_LAG_GROUPS = 100;

/**
 * The broker's metrics in Prometheus form (Kafka's BrokerTopicMetrics, RequestMetrics, ReplicaManager
 * and KafkaController gauges under gregor_* names). Traffic counters come from every request the
 * broker handles (KafkaApis.requestObservers); partition gauges are computed when scraped.
 */
export class BrokerMetrics {
  readonly registry = new Registry();
  readonly #server: KafkaServer;
  readonly #observer = (e: RequestEvent) => this.#onRequest(e);
  /**
   * Bytes and records in, from every leader append a producer made (Produce and the HTTP record route alike); the
   * group coordinator's own appends to its internal topic are not producer traffic.
   */
  readonly #appendObserver = (topic: string, bytes: number, records: number) => {
    if (INTERNAL_TOPICS.has(topic)) return;
    this.#bytesIn.inc({ topic }, bytes);
    this.#messagesIn.inc({ topic }, records);
  };
  #appendsOf: KafkaServer['replicaManager'] | null = null;
  #attachedTo: KafkaServer['apis'] | null = null;
  readonly #requests: Counter<'api'>;
  readonly #requestSeconds: Histogram<'api'>;
  readonly #requestBytes: Counter<'api'>;
  readonly #responseBytes: Counter<'api'>;
  readonly #bytesIn: Counter<'topic'>;
  readonly #messagesIn: Counter<'topic'>;
  readonly #bytesOut: Counter<'topic'>;
  readonly #replicationBytesOut: Counter<'topic'>;
  readonly #failedProduce: Counter<'topic'>;

  constructor(server: KafkaServer, groupLag?: GroupLagReader) {
    this.#server = server;
    const registers = [this.registry];
    this.registry.setDefaultLabels({ broker_id: String(server.brokerId) });
    collectDefaultMetrics({ register: this.registry, prefix: 'gregor_' });
    this.#requests = new Counter({ name: 'gregor_requests_total', help: 'Requests handled, by API.', labelNames: ['api'], registers });
    this.#requestSeconds = new Histogram({
      name: 'gregor_request_duration_seconds',
      help: 'Time from a request frame\'s arrival to its encoded response (includes purgatory waits: long-poll fetches, acks=all).',
      labelNames: ['api'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.#requestBytes = new Counter({ name: 'gregor_request_bytes_total', help: 'Request bytes received, by API.', labelNames: ['api'], registers });
    this.#responseBytes = new Counter({ name: 'gregor_response_bytes_total', help: 'Response bytes sent, by API.', labelNames: ['api'], registers });
    this.#bytesIn = new Counter({ name: 'gregor_bytes_in_total', help: 'Record bytes appended by producers (Kafka BytesInPerSec).', labelNames: ['topic'], registers });
    this.#messagesIn = new Counter({ name: 'gregor_messages_in_total', help: 'Records appended by producers (Kafka MessagesInPerSec).', labelNames: ['topic'], registers });
    this.#bytesOut = new Counter({ name: 'gregor_bytes_out_total', help: 'Record bytes sent to consumers (Kafka BytesOutPerSec).', labelNames: ['topic'], registers });
    this.#replicationBytesOut = new Counter({
      name: 'gregor_replication_bytes_out_total',
      help: 'Record bytes sent to follower replicas (Kafka ReplicationBytesOutPerSec).',
      labelNames: ['topic'],
      registers,
    });
    this.#failedProduce = new Counter({ name: 'gregor_failed_produce_requests_total', help: 'Produce partitions answered with an error.', labelNames: ['topic'], registers });

    const self = this;
    new Gauge({
      name: 'gregor_limit_hits_total',
      help: 'Times a broker limit was hit since startup, by setting: max.connections, max.connections.per.ip, connections.max.idle.ms, socket.request.max.bytes, queued.max.requests, connection.max.unsent.bytes, fetch.max.bytes, replica.fetch.response.max.bytes.',
      labelNames: ['limit'],
      registers,
      collect() {
        if (!self.#ready()) return;
        for (const [limit, n] of self.#server.limitHits()) this.set({ limit }, n);
      },
    });
    new Gauge({
      name: 'gregor_connections',
      help: 'Open client and broker connections.',
      registers,
      collect() {
        if (self.#ready()) this.set(self.#server.socketServer.connectionCount);
      },
    });
    const partitions = () => (self.#ready() ? self.#server.replicaManager.allPartitions() : []);
    new Gauge({
      name: 'gregor_under_replicated_partitions',
      help: 'Partitions this broker leads whose ISR is smaller than their replica set.',
      registers,
      collect() {
        this.set(partitions().filter((p) => p.isLeader && p.isr.length < p.assignedReplicas.length).length);
      },
    });
    new Gauge({
      name: 'gregor_offline_partitions',
      help: 'Partitions without a leader; reported by the active controller only, 0 on other brokers (as Kafka does).',
      registers,
      collect() {
        this.set(self.#controllerActive() ? self.#offlinePartitions() : 0);
      },
    });
    new Gauge({
      name: 'gregor_active_controller',
      help: '1 on the broker that is the active controller, else 0.',
      registers,
      collect() {
        this.set(self.#controllerActive() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'gregor_leader_partitions',
      help: 'Partitions this broker leads.',
      registers,
      collect() {
        this.set(partitions().filter((p) => p.isLeader).length);
      },
    });
    new Gauge({
      name: 'gregor_partitions',
      help: 'Partition replicas this broker hosts.',
      registers,
      collect() {
        this.set(partitions().length);
      },
    });
    // Counters kept by the IsrManager: exposed as counters whose value is read at scrape time.
    new Counter({
      name: 'gregor_isr_shrinks_total',
      help: 'ISR shrinks written by this broker as a leader.',
      registers,
      collect() {
        this.reset();
        this.inc(self.#server.isrManager?.shrinks ?? 0);
      },
    });
    new Counter({
      name: 'gregor_isr_expands_total',
      help: 'ISR expansions written by this broker as a leader.',
      registers,
      collect() {
        this.reset();
        this.inc(self.#server.isrManager?.expands ?? 0);
      },
    });
    // Fetch sessions (KIP-227): Kafka's NumIncrementalFetchSessions, NumIncrementalFetchPartitionsCached and
    // IncrementalFetchSessionEvictionsPerSec, plus the Fetch requests served per session kind.
    const fetchManager = () => (self.#server.fetchManager as KafkaServer['fetchManager'] | undefined);
    new Gauge({
      name: 'gregor_incremental_fetch_sessions',
      help: 'Fetch sessions in the broker\'s cache (max.incremental.fetch.session.cache.slots).',
      registers,
      collect() {
        this.set(fetchManager()?.cache.size ?? 0);
      },
    });
    new Gauge({
      name: 'gregor_incremental_fetch_partitions_cached',
      help: 'Partitions held by all cached fetch sessions.',
      registers,
      collect() {
        this.set(fetchManager()?.cache.totalPartitions ?? 0);
      },
    });
    new Counter({
      name: 'gregor_incremental_fetch_session_evictions_total',
      help: 'Fetch sessions evicted to make room for new ones.',
      registers,
      collect() {
        this.reset();
        this.inc(fetchManager()?.cache.evictions ?? 0);
      },
    });
    new Counter({
      name: 'gregor_fetch_requests_by_session_total',
      help: 'Fetch requests by fetcher (consumer, follower) and kind: sessionless, full (may create a session), incremental, or a session error (session_id_not_found, invalid_epoch).',
      labelNames: ['fetcher', 'kind'],
      registers,
      collect() {
        this.reset();
        const stats = fetchManager()?.stats;
        if (!stats) return;
        for (const fetcher of ['consumer', 'follower'] as const) {
          const s = stats[fetcher];
          this.inc({ fetcher, kind: 'sessionless' }, s.sessionless);
          this.inc({ fetcher, kind: 'full' }, s.full);
          this.inc({ fetcher, kind: 'incremental' }, s.incremental);
          this.inc({ fetcher, kind: 'session_id_not_found' }, s.sessionIdNotFound);
          this.inc({ fetcher, kind: 'invalid_epoch' }, s.invalidEpoch);
        }
      },
    });
    if (groupLag) {
      new Gauge({
        name: 'gregor_consumer_group_lag',
        help: 'Messages between a consumer group\'s committed offset and the log end, per partition (ZooKeeper consumer groups); reported by the active controller only.',
        labelNames: ['group', 'topic', 'partition'],
        registers,
        async collect() {
          this.reset();
          if (!self.#controllerActive()) return;
          for (const l of await groupLag().catch(() => [])) this.set({ group: l.group, topic: l.topic, partition: String(l.partition) }, l.lag);
        },
      });
    }
    this.attach();
  }

  /** Observes the broker's requests once its request handler exists (after startup). Idempotent. */
  attach(): void {
    const replicas = this.#server.replicaManager as KafkaServer['replicaManager'] | undefined;
    if (replicas && this.#appendsOf !== replicas) {
      this.#appendsOf?.appendObservers.delete(this.#appendObserver);
      replicas.appendObservers.add(this.#appendObserver);
      this.#appendsOf = replicas;
    }
    const apis = this.#server.apis as KafkaServer['apis'] | undefined;
    if (!apis || this.#attachedTo === apis) return;
    this.#attachedTo?.requestObservers.delete(this.#observer);
    apis.requestObservers.add(this.#observer);
    this.#attachedTo = apis;
  }

  detach(): void {
    this.#attachedTo?.requestObservers.delete(this.#observer);
    this.#attachedTo = null;
    this.#appendsOf?.appendObservers.delete(this.#appendObserver);
    this.#appendsOf = null;
  }

  /** The Prometheus text exposition. */
  async scrape(): Promise<string> {
    this.attach();
    return this.registry.metrics();
  }

  /** This broker's traffic counters summed over topics (what GET /v1/metrics/traffic answers). */
  async traffic(): Promise<BrokerTrafficTotals> {
    this.attach();
    const sum = async (c: Counter<'topic'>) => (await c.get()).values.reduce((acc, v) => acc + v.value, 0);
    const [bytesIn, bytesOut, messagesIn, replicationBytesOut] = await Promise.all([sum(this.#bytesIn), sum(this.#bytesOut), sum(this.#messagesIn), sum(this.#replicationBytesOut)]);
    return { brokerId: this.#server.brokerId, timestampMs: Date.now(), bytesIn, bytesOut, messagesIn, replicationBytesOut };
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #ready(): boolean {
    return (this.#server.replicaManager as KafkaServer['replicaManager'] | undefined) !== undefined;
  }

  #controllerActive(): boolean {
    return (this.#server.controller as KafkaServer['controller'] | undefined)?.isActive === true;
  }

  #offlinePartitions(): number {
    const cache = this.#server.metadataCache as KafkaServer['metadataCache'] | undefined;
    if (!cache) return 0;
    let offline = 0;
    for (const topic of cache.allTopics()) for (const p of cache.partitions(topic)) if (p.leader < 0) offline++;
    return offline;
  }

  #onRequest(e: RequestEvent): void {
    this.#requests.inc({ api: e.api });
    this.#requestSeconds.observe({ api: e.api }, e.durationMs / 1000);
    this.#requestBytes.inc({ api: e.api }, e.requestBytes);
    this.#responseBytes.inc({ api: e.api }, e.responseBytes);
    if (e.apiKey === ApiKey.Produce) this.#onProduce(e.request as ProduceRequest, e.response as ProduceResponse | null);
    else if (e.apiKey === ApiKey.Fetch && e.response) this.#onFetch(e.request as FetchRequest, e.response as FetchResponse);
  }

  /** Counts the partitions a Produce answered with an error (what was appended is counted at the append). */
  #onProduce(req: ProduceRequest, res: ProduceResponse | null): void {
    for (const t of req.topicData) {
      const answered = res?.responses.find((r) => r.name === t.name);
      for (const p of t.partitionData) {
        if (!p.records) continue;
        const errorCode = answered?.partitionResponses.find((r) => r.index === p.index)?.errorCode ?? 0;
        if (errorCode !== 0) this.#failedProduce.inc({ topic: t.name });
      }
    }
  }

  #onFetch(req: FetchRequest, res: FetchResponse): void {
    const out = req.replicaId >= 0 ? this.#replicationBytesOut : this.#bytesOut;
    for (const t of res.responses) {
      let bytes = 0;
      for (const p of t.partitionResponses) bytes += p.recordSet?.length ?? 0;
      if (bytes > 0) out.inc({ topic: t.topic }, bytes);
    }
  }
}

/** Records in a buffer of v2 record batches, from each batch header's recordsCount. */
export function countRecords(records: Buffer): number {
  let count = 0;
  let at = 0;
  while (at + BATCH_HEADER_BYTES <= records.length) {
    count += records.readInt32BE(at + RECORDS_COUNT_AT);
    at += 12 + records.readInt32BE(at + BATCH_LENGTH_AT);
  }
  return count;
}
