import { backoffMs, ConfigError, ErrorCode, GregorError, KafkaProtocolError, errorName } from '@gregor/common';
import { CompressionType, Produce, encodeRecordBatch, type ProduceResponse, type RecordInput } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { requireNonNegativeInt } from './config.js';
import { DefaultPartitioner, keyBytes, type RecordKey } from './partitioner.js';
import { ProducerIdState } from './producer-id-state.js';
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

/** One send() call waiting for all of its records. */
interface PendingSend {
  results: RecordMetadata[];
  remaining: number;
  settled: boolean;
  resolve(results: RecordMetadata[]): void;
  reject(error: unknown): void;
}

/** Records of one partition going out as one RecordBatch (Kafka's ProducerBatch). */
interface ProducerBatch {
  topic: string;
  partition: number;
  acks: Acks;
  compression: CompressionName;
  timeoutMs: number;
  records: RecordInput[];
  /** Who waits for each record: the send and the record's index in its results. */
  slots: { pending: PendingSend; index: number }[];
  sizeBytes: number;
  createdAt: number;
  /** Closed to appends: full, or being sent. */
  closed: boolean;
  keyless: boolean;
  attempts: number;
  retryAt: number;
  encoded: Buffer | null;
  /** Idempotence: the producer id, epoch and first sequence it was sent with (-1 until first sent). */
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

const RECORD_OVERHEAD = 20;
const BATCH_OVERHEAD = 61;

function toBuffer(v: Buffer | string | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

function toRecordHeaders(headers: ProducerMessage['headers']): RecordInput['headers'] {
  if (!headers) return [];
  const pairs = Array.isArray(headers) ? (headers as ReadonlyArray<{ key: string; value: HeaderValue }>) : Object.entries(headers).map(([key, value]) => ({ key, value }));
  return pairs.map((h) => ({ key: h.key, value: toBuffer(h.value) }));
}

function recordSize(r: RecordInput): number {
  let size = RECORD_OVERHEAD + (r.key?.length ?? 0) + (r.value?.length ?? 0);
  for (const h of r.headers) size += h.key.length + (h.value?.length ?? 0) + 4;
  return size;
}

const tpKey = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * Kafka's producer in one piece: `send` partitions records (murmur2 of the key, a sticky partition for
 * keyless records that moves on when its batch is full or sent — KIP-480) and appends them to
 * per-partition batches (the RecordAccumulator). The sender drains batches that are full, have lingered
 * `linger.ms`, or are being flushed, with at most one request in flight per partition so records of a
 * partition are written in order; one Produce request per leader. Retriable failures put the batch back
 * at the head of its partition's queue and refresh metadata; it is resent after a jittered backoff until
 * `retries` or `delivery.timeout.ms` runs out.
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
  readonly #batchSize: number;
  readonly #lingerMs: number;
  readonly #partitioner: DefaultPartitioner;
  readonly #maxInFlight: number;
  /** Idempotence: producer id and sequences, or null without it. */
  readonly #idempotence: ProducerIdState | null;
  /** Idempotence: a batch's sequence is lost (it failed): once nothing is in flight, start over with a new producer id. */
  #producerIdResetPending = false;
  /** Per partition, the batches waiting in order; the head is the next to send. */
  readonly #queues = new Map<string, ProducerBatch[]>();
  /** Per partition, Produce requests awaiting an answer. */
  readonly #inFlight = new Map<string, number>();
  #drainScheduled = false;
  #draining = false;
  #drainAgain = false;
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;
  #flushing = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(client: KafkaClient, config: ProducerConfig = {}) {
    this.#client = client;
    this.#acks = checkAcks(config.acks ?? -1);
    this.#compression = checkCompression(config.compression ?? 'none');
    this.#retries = requireNonNegativeInt('retries', config.retries, 2_147_483_647);
    this.#retryBackoffMs = requireNonNegativeInt('retryBackoffMs', config.retryBackoffMs, 100);
    this.#retryBackoffMaxMs = requireNonNegativeInt('retryBackoffMaxMs', config.retryBackoffMaxMs, 1000);
    this.#deliveryTimeoutMs = requireNonNegativeInt('deliveryTimeoutMs', config.deliveryTimeoutMs, 120_000);
    this.#requestTimeoutMs = requireNonNegativeInt('requestTimeoutMs', config.requestTimeoutMs, 30_000);
    this.#batchSize = Math.max(1, requireNonNegativeInt('batchSize', config.batchSize, 16_384));
    this.#lingerMs = requireNonNegativeInt('lingerMs', config.lingerMs, 0);
    this.#partitioner = config.partitioner ?? new DefaultPartitioner();
    const idempotent = config.idempotent ?? false;
    this.#maxInFlight = requireNonNegativeInt('maxInFlightPerPartition', config.maxInFlightPerPartition, idempotent ? 5 : 1);
    if (this.#maxInFlight < 1 || this.#maxInFlight > (idempotent ? 5 : 1)) {
      throw new ConfigError(`maxInFlightPerPartition must be ${idempotent ? 'between 1 and 5 with idempotence' : '1 without idempotence'}, got ${this.#maxInFlight}`);
    }
    if (idempotent && this.#acks !== -1) throw new ConfigError(`an idempotent producer needs acks -1 (all), got ${this.#acks}`);
    if (idempotent && this.#retries === 0) throw new ConfigError('an idempotent producer needs retries > 0');
    this.#idempotence = idempotent ? new ProducerIdState(client, { retryBackoffMs: this.#retryBackoffMs, retryBackoffMaxMs: this.#retryBackoffMaxMs }) : null;
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
    const now = Date.now();
    const records: RecordInput[] = record.messages.map((m) => ({
      key: keyBytes(m.key),
      value: toBuffer(m.value),
      headers: toRecordHeaders(m.headers),
      timestamp: m.timestamp ?? now,
    }));
    // Metadata first: a topic whose leaders are not known yet is waited for, within delivery.timeout.ms.
    const numPartitions = await retry(() => this.#partitionCount(record), {
      retries: this.#retries,
      retryBackoffMs: this.#retryBackoffMs,
      retryBackoffMaxMs: this.#retryBackoffMaxMs,
      totalTimeoutMs: this.#deliveryTimeoutMs,
      onRetry: async () => {
        await this.#client.refreshMetadata([record.topic]).catch(() => undefined);
      },
    });
    for (const m of record.messages) {
      if (m.partition !== undefined && (!Number.isInteger(m.partition) || m.partition < 0 || m.partition >= numPartitions)) {
        throw new KafkaProtocolError(ErrorCode.INVALID_PARTITIONS, `partition ${m.partition} is not in topic ${record.topic} (${numPartitions} partitions)`);
      }
    }
    return new Promise<RecordMetadata[]>((resolve, reject) => {
      const pending: PendingSend = {
        results: records.map((r) => ({ topic: record.topic, partition: -1, offset: -1, timestamp: r.timestamp, logAppendTime: -1 })),
        remaining: records.length,
        settled: false,
        resolve,
        reject,
      };
      const available = this.#client.topic(record.topic)!.partitions.filter((p) => p.leader >= 0).map((p) => p.partition);
      record.messages.forEach((m, i) => {
        const r = records[i]!;
        const partition = m.partition ?? this.#partitioner.partition(record.topic, r.key, numPartitions, available);
        this.#append(record.topic, partition, r, { pending, index: i }, { acks, compression, timeoutMs, keyless: m.partition === undefined && r.key === null, numPartitions, available });
      });
      this.#scheduleDrain();
    });
  }

  /** Resolves once every record sent so far is acknowledged or failed (lingering batches go at once). */
  async flush(): Promise<void> {
    this.#flushing++;
    try {
      this.#scheduleDrain();
      while (this.#queues.size > 0 || this.#inFlight.size > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    } finally {
      this.#flushing--;
    }
  }

  /** Flushes; the client stays open (it belongs to the caller). */
  async close(): Promise<void> {
    await this.flush();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #partitionCount(record: ProducerRecord): Promise<number> {
    await this.#client.ensureTopics([record.topic]);
    const topic = this.#client.topic(record.topic);
    if (!topic) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic ${record.topic} does not exist`);
    if (topic.partitions.length === 0) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `topic ${record.topic} has no partitions yet`);
    return topic.partitions.length;
  }

  // ---- accumulator -----------------------------------------------------------------------------

  #append(
    topic: string,
    partition: number,
    record: RecordInput,
    slot: ProducerBatch['slots'][number],
    o: { acks: Acks; compression: CompressionName; timeoutMs: number; keyless: boolean; numPartitions: number; available: number[] },
  ): void {
    const k = tpKey(topic, partition);
    let queue = this.#queues.get(k);
    if (!queue) this.#queues.set(k, (queue = []));
    let batch = queue[queue.length - 1];
    const size = recordSize(record);
    const fits = batch && !batch.closed && batch.acks === o.acks && batch.compression === o.compression && batch.timeoutMs === o.timeoutMs && batch.sizeBytes + size <= this.#batchSize;
    if (!fits) {
      if (batch && !batch.closed) this.#close(batch, o.numPartitions, o.available);
      batch = {
        topic,
        partition,
        acks: o.acks,
        compression: o.compression,
        timeoutMs: o.timeoutMs,
        records: [],
        slots: [],
        sizeBytes: BATCH_OVERHEAD,
        createdAt: Date.now(),
        closed: false,
        keyless: false,
        attempts: 0,
        retryAt: 0,
        encoded: null,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
      };
      queue.push(batch);
    }
    batch.records.push(record);
    batch.slots.push(slot);
    batch.sizeBytes += size;
    batch.keyless ||= o.keyless;
    if (batch.sizeBytes >= this.#batchSize) this.#close(batch, o.numPartitions, o.available);
  }

  /** No more appends; keyless records move to another sticky partition (KIP-480). */
  #close(batch: ProducerBatch, numPartitions?: number, available?: number[]): void {
    if (batch.closed) return;
    batch.closed = true;
    if (batch.keyless) {
      const topic = this.#client.topic(batch.topic);
      const n = numPartitions ?? topic?.partitions.length ?? 0;
      if (n > 0) this.#partitioner.onNewBatch(batch.topic, n, available ?? topic!.partitions.filter((p) => p.leader >= 0).map((p) => p.partition));
    }
  }

  #ready(batch: ProducerBatch, now: number): boolean {
    return batch.closed || this.#flushing > 0 || now - batch.createdAt >= this.#lingerMs;
  }

  // ---- sender ----------------------------------------------------------------------------------

  #scheduleDrain(): void {
    if (this.#drainScheduled) return;
    this.#drainScheduled = true;
    // After the current tick, so one send()'s records (and concurrent ones) share batches and requests.
    setImmediate(() => {
      this.#drainScheduled = false;
      void this.#drain();
    });
  }

  #wakeAt(at: number): void {
    if (at >= this.#timerAt) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      this.#scheduleDrain();
    }, Math.max(0, at - Date.now()));
  }

  async #drain(): Promise<void> {
    if (this.#draining) {
      this.#drainAgain = true;
      return;
    }
    this.#draining = true;
    try {
      do {
        this.#drainAgain = false;
        // Again while batches go out: with several requests allowed in flight a partition may send more.
        while (await this.#sendReady());
      } while (this.#drainAgain);
    } finally {
      this.#draining = false;
    }
    if (this.#queues.size === 0 && this.#inFlight.size === 0) for (const w of this.#idleWaiters.splice(0)) w();
  }

  /**
   * Kafka's ready/drain: a leader is ready when the head batch of one of its partitions is (full, lingered,
   * flushing); then the head batch of every partition it leads without a request in flight goes, lingered
   * or not, grouped into one Produce request per leader.
   */
  async #sendReady(): Promise<boolean> {
    const now = Date.now();
    if (this.#idempotence && !(await this.#readyToSequence(now))) return false;
    let nextWake = Infinity;
    const candidates: { k: string; batch: ProducerBatch; leader: number }[] = [];
    const readyLeaders = new Set<number>();
    for (const [k, queue] of [...this.#queues]) {
      if (!this.#mayDispatch(k, queue[0]!)) continue;
      const batch = queue[0]!;
      if (batch.retryAt > now) {
        if (batch.retryAt < Infinity) nextWake = Math.min(nextWake, batch.retryAt);
        continue;
      }
      let leader: number;
      try {
        leader = await this.#client.leaderFor(batch.topic, batch.partition);
      } catch (error) {
        this.#failedAttempt(batch, error);
        continue;
      }
      candidates.push({ k, batch, leader });
      if (this.#ready(batch, now)) readyLeaders.add(leader);
      else nextWake = Math.min(nextWake, batch.createdAt + this.#lingerMs);
    }
    const byLeader = new Map<string, { leader: number; acks: Acks; timeoutMs: number; batches: ProducerBatch[] }>();
    let dispatched = false;
    for (const { k, batch, leader } of candidates) {
      if (!readyLeaders.has(leader) || this.#queues.get(k)?.[0] !== batch || !this.#mayDispatch(k, batch)) continue;
      this.#close(batch);
      const queue = this.#queues.get(k)!;
      queue.shift();
      if (queue.length === 0) this.#queues.delete(k);
      this.#inFlight.set(k, (this.#inFlight.get(k) ?? 0) + 1);
      if (this.#idempotence && batch.baseSequence < 0) {
        // Sequences are taken when a batch first goes out, in queue order; a retry keeps them.
        batch.producerId = this.#idempotence.producerId;
        batch.producerEpoch = this.#idempotence.producerEpoch;
        batch.baseSequence = this.#idempotence.takeSequences(k, batch.records.length);
        batch.encoded = null;
      }
      dispatched = true;
      const group = `${leader}/${batch.acks}/${batch.timeoutMs}`;
      let entry = byLeader.get(group);
      if (!entry) byLeader.set(group, (entry = { leader, acks: batch.acks, timeoutMs: batch.timeoutMs, batches: [] }));
      entry.batches.push(batch);
    }
    for (const entry of byLeader.values()) void this.#produce(entry.leader, entry.acks, entry.timeoutMs, entry.batches);
    if (nextWake < Infinity) this.#wakeAt(nextWake);
    return dispatched;
  }

  /**
   * Whether the head batch of a partition may go now. Without idempotence one request per partition is in flight.
   * With it up to maxInFlightPerPartition, but a retried batch (it has its sequence) goes only when nothing of its
   * partition is in flight, so the batches before it are settled and it is the one the broker expects next.
   */
  #mayDispatch(k: string, batch: ProducerBatch): boolean {
    const inFlight = this.#inFlight.get(k) ?? 0;
    if (!this.#idempotence) return inFlight === 0;
    if (this.#producerIdResetPending) return false;
    return batch.baseSequence >= 0 ? inFlight === 0 : inFlight < this.#maxInFlight;
  }

  /**
   * Idempotence: a producer id before anything is sent. After a reset, once nothing is in flight, every waiting
   * batch drops its sequence and a new producer id is fetched; the batches then go out numbered from 0 again.
   */
  async #readyToSequence(now: number): Promise<boolean> {
    const state = this.#idempotence!;
    if (this.#producerIdResetPending) {
      if (this.#inFlight.size > 0) return false;
      this.#producerIdResetPending = false;
      state.reset();
      for (const queue of this.#queues.values()) {
        for (const b of queue) {
          b.baseSequence = -1;
          b.encoded = null;
        }
      }
    }
    if (state.hasProducerId || this.#queues.size === 0) return true;
    try {
      await state.ensureProducerId(now + this.#deliveryTimeoutMs);
      return true;
    } catch (error) {
      // No producer id within delivery.timeout.ms: the waiting batches fail.
      for (const queue of [...this.#queues.values()]) for (const b of [...queue]) this.#fail(b, error);
      return false;
    }
  }

  async #produce(leader: number, acks: Acks, timeoutMs: number, batches: ProducerBatch[]): Promise<void> {
    for (const b of batches) {
      const idempotent = b.baseSequence >= 0 ? { producerId: b.producerId, producerEpoch: b.producerEpoch, baseSequence: b.baseSequence } : {};
      b.encoded ??= encodeRecordBatch({ baseOffset: 0, compression: CompressionType[b.compression], firstTimestamp: b.records[0]!.timestamp, records: b.records, ...idempotent });
    }
    const request = {
      transactionalId: null,
      acks,
      timeoutMs,
      topicData: groupByTopic(batches).map(([name, parts]) => ({ name, partitionData: parts.map((b) => ({ index: b.partition, records: b.encoded! })) })),
    };
    try {
      if (acks === 0) {
        await this.#client.sendTo(leader, Produce, request, { expectResponse: false });
        for (const b of batches) this.#complete(b, -1, -1);
      } else {
        const response = await this.#client.sendTo(leader, Produce, request, { timeoutMs: timeoutMs + this.#client.requestTimeoutMs });
        this.#applyResponse(batches, response);
      }
    } catch (error) {
      for (const b of batches) if (b.slots.length > 0) this.#failedAttempt(b, error, true);
    } finally {
      for (const b of batches) {
        const k = tpKey(b.topic, b.partition);
        const n = (this.#inFlight.get(k) ?? 1) - 1;
        if (n > 0) this.#inFlight.set(k, n);
        else this.#inFlight.delete(k);
      }
      this.#scheduleDrain();
    }
  }

  #applyResponse(batches: ProducerBatch[], response: ProduceResponse): void {
    for (const b of batches) {
      const p = response.responses.find((t) => t.name === b.topic)?.partitionResponses.find((x) => x.index === b.partition);
      // No answer for the partition is a lost answer: retried (an idempotent retry cannot write twice), never dropped.
      if (!p) this.#failedAttempt(b, new KafkaProtocolError(ErrorCode.NETWORK_EXCEPTION, `Produce response has no result for ${b.topic}-${b.partition}`), true);
      // DUPLICATE_SEQUENCE_NUMBER: a pre-2.0 broker's answer to a retry it already has (Kafka 2.4 never sends it).
      else if (p.errorCode === ErrorCode.NONE || (p.errorCode === ErrorCode.DUPLICATE_SEQUENCE_NUMBER && b.baseSequence >= 0)) this.#complete(b, p.baseOffset, p.logAppendTimeMs);
      else this.#failedAttempt(b, new KafkaProtocolError(p.errorCode, `produce to ${b.topic}-${b.partition} failed with ${errorName(p.errorCode)}`), true);
    }
  }

  /**
   * A retriable failure puts the batch back at the head of its partition (order kept) for another try
   * after a backoff and a metadata refresh, while retries and delivery.timeout.ms allow; else it fails.
   */
  #failedAttempt(batch: ProducerBatch, error: unknown, wasSent = false): void {
    if (wasSent) batch.attempts++;
    const now = Date.now();
    const wait = backoffMs(Math.max(0, batch.attempts - 1), this.#retryBackoffMs, this.#retryBackoffMaxMs);
    let retriable = error instanceof GregorError && error.retriable;
    if (this.#idempotence && wasSent && error instanceof GregorError) retriable = this.#sequenceErrorRetriable(batch, error.code, retriable);
    if (!retriable || batch.attempts > this.#retries || now + wait - batch.createdAt >= this.#deliveryTimeoutMs) {
      this.#fail(batch, error);
      return;
    }
    // Not before the metadata refresh is done: the resend must go to the new leader.
    batch.retryAt = Infinity;
    if (wasSent) {
      const k = tpKey(batch.topic, batch.partition);
      const queue = this.#queues.get(k) ?? [];
      // Back in sequence order ahead of the batches never sent (several may be retried after one failure).
      let i = 0;
      while (batch.baseSequence >= 0 && i < queue.length && queue[i]!.baseSequence >= 0 && queue[i]!.baseSequence < batch.baseSequence) i++;
      queue.splice(i, 0, batch);
      this.#queues.set(k, queue);
    }
    void this.#client
      .refreshMetadata([batch.topic])
      .catch(() => undefined)
      .then(() => {
        batch.retryAt = Math.max(now + wait, Date.now());
        this.#wakeAt(batch.retryAt);
      });
  }

  /**
   * Idempotence: OUT_OF_ORDER_SEQUENCE_NUMBER for a batch behind an unacknowledged one echoes that one's failure
   * (retry it in order); for the batch the broker should expect next, the broker lost our sequence: it fails, and
   * so does INVALID_PRODUCER_EPOCH (both then start a new producer id, see #fail). UNKNOWN_PRODUCER_ID: the broker
   * forgot this producer (producer.id.expiration.ms, retention): nothing of the unacknowledged batches was written,
   * so they are retried under a new producer id.
   */
  #sequenceErrorRetriable(batch: ProducerBatch, code: number, retriable: boolean): boolean {
    const state = this.#idempotence!;
    if (code !== ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER && code !== ErrorCode.UNKNOWN_PRODUCER_ID && code !== ErrorCode.INVALID_PRODUCER_EPOCH) return retriable;
    if (batch.producerId !== state.producerId) return true;
    if (code === ErrorCode.UNKNOWN_PRODUCER_ID) {
      this.#producerIdResetPending = true;
      return true;
    }
    if (code === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER) return batch.baseSequence !== state.expectedSequence(tpKey(batch.topic, batch.partition));
    return false;
  }

  #fail(batch: ProducerBatch, error: unknown): void {
    // A failed batch leaves a gap in its partition's sequences: the next batches need a new producer id.
    if (this.#idempotence && batch.baseSequence >= 0 && batch.producerId === this.#idempotence.producerId) this.#producerIdResetPending = true;
    const k = tpKey(batch.topic, batch.partition);
    const queue = this.#queues.get(k);
    if (queue) {
      const i = queue.indexOf(batch);
      if (i >= 0) queue.splice(i, 1);
      if (queue.length === 0) this.#queues.delete(k);
    }
    for (const { pending } of batch.slots) {
      if (pending.settled) continue;
      pending.settled = true;
      pending.reject(error);
    }
    batch.slots = [];
  }

  #complete(b: ProducerBatch, baseOffset: number, logAppendTime: number): void {
    if (this.#idempotence && b.baseSequence >= 0 && b.producerId === this.#idempotence.producerId) {
      this.#idempotence.acknowledge(tpKey(b.topic, b.partition), (b.baseSequence + b.records.length - 1) % 0x80000000);
    }
    b.slots.forEach(({ pending, index }, i) => {
      const r = pending.results[index]!;
      r.partition = b.partition;
      r.offset = baseOffset < 0 ? -1 : baseOffset + i;
      r.logAppendTime = logAppendTime;
      if (logAppendTime >= 0) r.timestamp = logAppendTime;
      if (--pending.remaining === 0 && !pending.settled) {
        pending.settled = true;
        pending.resolve(pending.results);
      }
    });
    b.slots = [];
  }
}

function groupByTopic(list: ProducerBatch[]): [string, ProducerBatch[]][] {
  const out = new Map<string, ProducerBatch[]>();
  for (const b of list) out.set(b.topic, [...(out.get(b.topic) ?? []), b]);
  return [...out];
}

function checkAcks(acks: number): Acks {
  if (acks !== -1 && acks !== 0 && acks !== 1) throw new ConfigError(`acks must be -1 (all), 0 or 1, got ${acks}`);
  return acks;
}

function checkCompression(compression: string): CompressionName {
  if (!isCompressionName(compression)) throw new ConfigError(`compression must be one of ${COMPRESSION_NAMES.join(', ')}, got "${compression}"`);
  return compression;
}
