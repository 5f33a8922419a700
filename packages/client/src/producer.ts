import { ConfigError, ErrorCode, KafkaProtocolError } from '@gregor/common';
import type { RecordInput } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { requireNonNegativeInt } from './config.js';
import { DefaultPartitioner, keyBytes, type RecordKey } from './partitioner.js';
import { ProducerIdState } from './producer-id-state.js';
import { Sender } from './producer-sender.js';
import { RecordAccumulator, type AppendOptions, type PendingSend } from './record-accumulator.js';
import { retry } from '@gregor/net';

export type Acks = -1 | 0 | 1;
/** Kafka's `compression.type` values for a producer. */
export const COMPRESSION_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type CompressionName = (typeof COMPRESSION_NAMES)[number];

export function isCompressionName(name: string): name is CompressionName {
  return (COMPRESSION_NAMES as readonly string[]).includes(name);
}

/** Producer settings, named after Kafka's producer configs. */
export interface ProducerConfig {
  /** `acks`: 0 = no response, 1 = leader only, -1 = all in-sync replicas. Default -1. */
  acks?: Acks;
  /** `compression.type`. Default "none". */
  compression?: CompressionName;
  /** `retries`: resends after retriable errors, bounded by deliveryTimeoutMs. Default 2147483647. */
  retries?: number;
  /** `retry.backoff.ms`. Default 100. */
  retryBackoffMs?: number;
  /** Cap on one backoff (exponential with jitter). Default 1000. */
  retryBackoffMaxMs?: number;
  /** `delivery.timeout.ms`: upper bound on the time one record may take, retries included. Default 120000. */
  deliveryTimeoutMs?: number;
  /** `request.timeout.ms`: how long the broker may wait for replicas (Produce timeoutMs). Default 30000. */
  requestTimeoutMs?: number;
  /** `batch.size`: a partition's batch is sent once it holds this many bytes of records. Default 16384. */
  batchSize?: number;
  /** `linger.ms`: how long a batch that is not full waits for more records. Default 0. */
  lingerMs?: number;
  /**
   * `enable.idempotence`: a producer id from InitProducerId and a sequence number per partition on every batch, so
   * that the broker writes a retried batch once. Needs acks -1 (the default). Default false.
   */
  idempotent?: boolean;
  /**
   * Produce requests in flight per partition (`max.in.flight.requests.per.connection`, per partition here). Records
   * stay in order either way: without idempotence only 1 is allowed; with it at most 5 (the broker remembers the
   * last 5 batches of a producer). Default 1, or 5 with idempotence.
   */
  maxInFlightPerPartition?: number;
  partitioner?: DefaultPartitioner;
}

export type HeaderValue = Buffer | string | null;

export interface ProducerMessage {
  key?: RecordKey;
  value: Buffer | string | null;
  /** An object, or a list of pairs when a key repeats. */
  headers?: Record<string, HeaderValue> | ReadonlyArray<{ key: string; value: HeaderValue }>;
  /** An explicit partition; otherwise the partitioner picks one. */
  partition?: number;
  /** CreateTime in ms. Default: now. */
  timestamp?: number;
}

export interface ProducerRecord {
  topic: string;
  messages: ProducerMessage[];
  acks?: Acks;
  compression?: CompressionName;
  /** Produce timeoutMs for this send. */
  timeoutMs?: number;
}

export interface RecordMetadata {
  topic: string;
  partition: number;
  /** -1 with acks=0 (the broker does not answer). */
  offset: number;
  timestamp: number;
  /** The broker's append time when the topic uses LogAppendTime, else -1. */
  logAppendTime: number;
}

function toBuffer(v: Buffer | string | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

/** Shared by every record without headers (read only): no array per record. */
const NO_HEADERS: RecordInput['headers'] = [];

function toRecordHeaders(headers: ProducerMessage['headers']): RecordInput['headers'] {
  if (!headers) return NO_HEADERS;
  const pairs = Array.isArray(headers) ? (headers as ReadonlyArray<{ key: string; value: HeaderValue }>) : Object.entries(headers).map(([key, value]) => ({ key, value }));
  return pairs.map((h) => ({ key: h.key, value: toBuffer(h.value) }));
}

/**
 * Kafka's producer: `send` partitions records (murmur2 of the key, a sticky partition for keyless records
 * that moves on when its batch is full or sent — KIP-480) and appends them to per-partition batches
 * (record-accumulator.ts); the Sender (producer-sender.ts) drains the ready ones as Produce requests, with
 * retries, acks and idempotent sequence numbers.
 */
export class Producer {
  readonly #client: KafkaClient;
  readonly #acks: Acks;
  readonly #compression: CompressionName;
  readonly #retries: number;
  readonly #retryBackoffMs: number;
  readonly #retryBackoffMaxMs: number;
  readonly #deliveryTimeoutMs: number;
  readonly #requestTimeoutMs: number;
  readonly #partitioner: DefaultPartitioner;
  readonly #idempotence: ProducerIdState | null;
  readonly #accumulator: RecordAccumulator;
  /** Sends whose topic metadata is still being fetched: not in the accumulator yet. */
  readonly #awaitingMetadata = new Set<Promise<number>>();
  readonly #sender: Sender;

  constructor(client: KafkaClient, config: ProducerConfig = {}) {
    this.#client = client;
    this.#acks = checkAcks(config.acks ?? -1);
    this.#compression = checkCompression(config.compression ?? 'none');
    this.#retries = requireNonNegativeInt('retries', config.retries, 2_147_483_647);
    this.#retryBackoffMs = requireNonNegativeInt('retryBackoffMs', config.retryBackoffMs, 100);
    this.#retryBackoffMaxMs = requireNonNegativeInt('retryBackoffMaxMs', config.retryBackoffMaxMs, 1000);
    this.#deliveryTimeoutMs = requireNonNegativeInt('deliveryTimeoutMs', config.deliveryTimeoutMs, 120_000);
    this.#requestTimeoutMs = requireNonNegativeInt('requestTimeoutMs', config.requestTimeoutMs, 30_000);
    const batchSize = Math.max(1, requireNonNegativeInt('batchSize', config.batchSize, 16_384));
    const lingerMs = requireNonNegativeInt('lingerMs', config.lingerMs, 0);
    this.#partitioner = config.partitioner ?? new DefaultPartitioner();
    const idempotent = config.idempotent ?? false;
    const maxInFlight = requireNonNegativeInt('maxInFlightPerPartition', config.maxInFlightPerPartition, idempotent ? 5 : 1);
    if (maxInFlight < 1 || maxInFlight > (idempotent ? 5 : 1)) {
      throw new ConfigError(`maxInFlightPerPartition must be ${idempotent ? 'between 1 and 5 with idempotence' : '1 without idempotence'}, got ${maxInFlight}`);
    }
    if (idempotent && this.#acks !== -1) throw new ConfigError(`an idempotent producer needs acks -1 (all), got ${this.#acks}`);
    if (idempotent && this.#retries === 0) throw new ConfigError('an idempotent producer needs retries > 0');
    this.#idempotence = idempotent ? new ProducerIdState(client, { retryBackoffMs: this.#retryBackoffMs, retryBackoffMaxMs: this.#retryBackoffMaxMs }) : null;
    this.#accumulator = new RecordAccumulator(client, { batchSize, lingerMs, partitioner: this.#partitioner });
    this.#sender = new Sender(client, this.#accumulator, this.#idempotence, {
      retries: this.#retries,
      retryBackoffMs: this.#retryBackoffMs,
      retryBackoffMaxMs: this.#retryBackoffMaxMs,
      deliveryTimeoutMs: this.#deliveryTimeoutMs,
      maxInFlight,
    });
  }

  /** Idempotence: the producer id in use, -1 before the first send (or without idempotence). */
  get producerId(): number {
    return this.#idempotence?.producerId ?? -1;
  }

  /** Sends the messages and resolves with their offsets, in the order given, once all are acknowledged. */
  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    const acks = checkAcks(record.acks ?? this.#acks);
    if (this.#idempotence && acks !== -1) throw new ConfigError(`an idempotent producer sends with acks -1 (all), got ${acks}`);
    const compression = checkCompression(record.compression ?? this.#compression);
    const timeoutMs = record.timeoutMs ?? this.#requestTimeoutMs;
    if (record.messages.length === 0) return [];
    // The messages are read now (a caller may reuse its message objects once send() returned), into one array per
    // field rather than an object per record; each record's result is made here and filled in when it is acknowledged.
    const now = Date.now();
    const n = record.messages.length;
    const keys: (Buffer | null)[] = new Array(n);
    const values: (Buffer | null)[] = new Array(n);
    const headers: RecordInput['headers'][] = new Array(n);
    const results: RecordMetadata[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const m = record.messages[i]!;
      keys[i] = keyBytes(m.key);
      values[i] = toBuffer(m.value);
      headers[i] = toRecordHeaders(m.headers);
      results[i] = { topic: record.topic, partition: -1, offset: -1, timestamp: m.timestamp ?? now, logAppendTime: -1 };
    }
    // Metadata first: a topic whose leaders are not known yet is waited for, within delivery.timeout.ms.
    // flush() waits for these too: a record sent before it counts even while its metadata is still coming.
    const metadata = retry(() => this.#partitionCount(record), {
      retries: this.#retries,
      retryBackoffMs: this.#retryBackoffMs,
      retryBackoffMaxMs: this.#retryBackoffMaxMs,
      totalTimeoutMs: this.#deliveryTimeoutMs,
      onRetry: async () => {
        await this.#client.refreshMetadata([record.topic]).catch(() => undefined);
      },
    });
    this.#awaitingMetadata.add(metadata);
    let numPartitions: number;
    try {
      numPartitions = await metadata;
    } finally {
      this.#awaitingMetadata.delete(metadata);
    }
    for (const m of record.messages) {
      if (m.partition !== undefined && (!Number.isInteger(m.partition) || m.partition < 0 || m.partition >= numPartitions)) {
        throw new KafkaProtocolError(ErrorCode.INVALID_PARTITIONS, `partition ${m.partition} is not in topic ${record.topic} (${numPartitions} partitions)`);
      }
    }
    return new Promise<RecordMetadata[]>((resolve, reject) => {
      const pending: PendingSend = { results, remaining: n, settled: false, resolve, reject };
      const available = this.#client.topic(record.topic)!.partitions.filter((p) => p.leader >= 0).map((p) => p.partition);
      // Two option sets per send, not one per record: a record is keyless when neither its partition nor its key is set.
      const keyed: AppendOptions = { acks, compression, timeoutMs, keyless: false, numPartitions, available };
      const keyless: AppendOptions = { ...keyed, keyless: true };
      for (let i = 0; i < n; i++) {
        const explicit = record.messages[i]!.partition;
        const key = keys[i]!;
        const partition = explicit ?? this.#partitioner.partition(record.topic, key, numPartitions, available);
        const o = explicit === undefined && key === null ? keyless : keyed;
        this.#accumulator.append(record.topic, partition, key, values[i]!, headers[i]!, results[i]!.timestamp, pending, i, o);
      }
      this.#sender.scheduleDrain();
    });
  }

  /** Resolves once every record sent so far is acknowledged or failed (lingering batches go at once). */
  async flush(): Promise<void> {
    this.#accumulator.flushing++;
    try {
      // Sends still waiting for metadata append when it arrives; with flushing set they go at once.
      while (this.#awaitingMetadata.size > 0) await Promise.allSettled([...this.#awaitingMetadata]);
      this.#sender.scheduleDrain();
      while (!this.#sender.idle) await this.#sender.nextIdle();
    } finally {
      this.#accumulator.flushing--;
    }
  }

  /** Flushes; the client stays open (it belongs to the caller). */
  async close(): Promise<void> {
    await this.flush();
    this.#sender.close();
  }

  async #partitionCount(record: ProducerRecord): Promise<number> {
    await this.#client.ensureTopics([record.topic]);
    const topic = this.#client.topic(record.topic);
    if (!topic) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic ${record.topic} does not exist`);
    if (topic.partitions.length === 0) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `topic ${record.topic} has no partitions yet`);
    return topic.partitions.length;
  }
}

function checkAcks(acks: number): Acks {
  if (acks !== -1 && acks !== 0 && acks !== 1) throw new ConfigError(`acks must be -1 (all), 0 or 1, got ${acks}`);
  return acks;
}

function checkCompression(compression: string): CompressionName {
  if (!isCompressionName(compression)) throw new ConfigError(`compression must be one of ${COMPRESSION_NAMES.join(', ')}, got "${compression}"`);
  return compression;
}
