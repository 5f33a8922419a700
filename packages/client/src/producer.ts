import { ConfigError, ErrorCode, GregorError, KafkaProtocolError, errorName } from '@gregor/common';
import { CompressionType, Produce, encodeRecordBatch, type ProduceResponse, type RecordInput } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { requireNonNegativeInt } from './config.js';
import { DefaultPartitioner, keyBytes, type RecordKey } from './partitioner.js';
import { retry } from './retry.js';

export type Acks = -1 | 0 | 1;
export type CompressionName = 'none' | 'gzip';

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
  /** `delivery.timeout.ms`: upper bound on the time one send may take, retries included. Default 120000. */
  deliveryTimeoutMs?: number;
  /** `request.timeout.ms`: how long the broker may wait for replicas (Produce timeoutMs). Default 30000. */
  requestTimeoutMs?: number;
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

/** Messages of one partition going out as one RecordBatch. */
interface PartitionBatch {
  topic: string;
  partition: number;
  /** Positions of the messages in the caller's list. */
  indexes: number[];
  records: RecordInput[];
  batch: Buffer;
  done: boolean;
}

function toBuffer(v: Buffer | string | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

function toRecordHeaders(headers: ProducerMessage['headers']): RecordInput['headers'] {
  if (!headers) return [];
  const pairs = Array.isArray(headers) ? (headers as ReadonlyArray<{ key: string; value: HeaderValue }>) : Object.entries(headers).map(([key, value]) => ({ key, value }));
  return pairs.map((h) => ({ key: h.key, value: toBuffer(h.value) }));
}

/**
 * Sends records to partition leaders: one RecordBatch per partition and one Produce request per
 * leader, resending the partitions that failed with retriable errors (leader moved, not enough
 * replicas, connection lost) after a metadata refresh and a backoff. Batching by linger time can
 * slot in before `#produce` without changing this flow.
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

  constructor(client: KafkaClient, config: ProducerConfig = {}) {
    this.#client = client;
    this.#acks = checkAcks(config.acks ?? -1);
    this.#compression = checkCompression(config.compression ?? 'none');
    this.#retries = requireNonNegativeInt('retries', config.retries, 2_147_483_647);
    this.#retryBackoffMs = requireNonNegativeInt('retryBackoffMs', config.retryBackoffMs, 100);
    this.#retryBackoffMaxMs = requireNonNegativeInt('retryBackoffMaxMs', config.retryBackoffMaxMs, 1000);
    this.#deliveryTimeoutMs = requireNonNegativeInt('deliveryTimeoutMs', config.deliveryTimeoutMs, 120_000);
    this.#requestTimeoutMs = requireNonNegativeInt('requestTimeoutMs', config.requestTimeoutMs, 30_000);
    this.#partitioner = config.partitioner ?? new DefaultPartitioner();
  }

  /** Sends the messages and resolves with their offsets, in the order given. */
  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    const acks = checkAcks(record.acks ?? this.#acks);
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
    const results: RecordMetadata[] = records.map((r) => ({ topic: record.topic, partition: -1, offset: -1, timestamp: r.timestamp, logAppendTime: -1 }));
    let batches: PartitionBatch[] | undefined;

    await retry(
      async () => {
        batches ??= await this.#partition(record, records, compression);
        const waiting = batches.filter((b) => !b.done);
        const failures = await this.#produce(waiting, acks, timeoutMs, results);
        if (failures.length > 0) throw failures[0]!;
      },
      {
        retries: this.#retries,
        retryBackoffMs: this.#retryBackoffMs,
        retryBackoffMaxMs: this.#retryBackoffMaxMs,
        totalTimeoutMs: this.#deliveryTimeoutMs,
        onRetry: async () => {
          await this.#client.refreshMetadata([record.topic]).catch(() => undefined);
        },
      },
    );
    return results;
  }

  /** Assigns each message a partition (once: a retry resends the same batches). */
  async #partition(record: ProducerRecord, records: RecordInput[], compression: CompressionName): Promise<PartitionBatch[]> {
    await this.#client.ensureTopics([record.topic]);
    const topic = this.#client.topic(record.topic);
    if (!topic) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic ${record.topic} does not exist`);
    const numPartitions = topic.partitions.length;
    if (numPartitions === 0) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `topic ${record.topic} has no partitions yet`);
    const available = topic.partitions.filter((p) => p.leader >= 0).map((p) => p.partition);

    const byPartition = new Map<number, PartitionBatch>();
    let keyless = false;
    record.messages.forEach((m, i) => {
      let partition = m.partition;
      if (partition === undefined) {
        keyless ||= records[i]!.key === null;
        partition = this.#partitioner.partition(record.topic, records[i]!.key, numPartitions, available);
      } else if (!Number.isInteger(partition) || partition < 0 || partition >= numPartitions) {
        throw new KafkaProtocolError(ErrorCode.INVALID_PARTITIONS, `partition ${partition} is not in topic ${record.topic} (${numPartitions} partitions)`);
      }
      let batch = byPartition.get(partition);
      if (!batch) {
        batch = { topic: record.topic, partition, indexes: [], records: [], batch: Buffer.alloc(0), done: false };
        byPartition.set(partition, batch);
      }
      batch.indexes.push(i);
      batch.records.push(records[i]!);
    });
    if (keyless) this.#partitioner.onNewBatch(record.topic, numPartitions, available);

    for (const b of byPartition.values()) {
      b.batch = encodeRecordBatch({ baseOffset: 0, compression: CompressionType[compression], firstTimestamp: b.records[0]!.timestamp, records: b.records });
    }
    return [...byPartition.values()];
  }

  /** One Produce request per leader, in parallel. Returns the retriable failures; throws on others. */
  async #produce(batches: PartitionBatch[], acks: Acks, timeoutMs: number, results: RecordMetadata[]): Promise<GregorError[]> {
    const byLeader = new Map<number, PartitionBatch[]>();
    const failures: GregorError[] = [];
    for (const b of batches) {
      let leader: number;
      try {
        leader = await this.#client.leaderFor(b.topic, b.partition);
      } catch (error) {
        if (error instanceof GregorError && error.retriable) {
          failures.push(error);
          continue;
        }
        throw error;
      }
      const list = byLeader.get(leader) ?? [];
      list.push(b);
      byLeader.set(leader, list);
    }

    const outcomes = await Promise.allSettled(
      [...byLeader].map(async ([leader, list]) => {
        const request = {
          transactionalId: null,
          acks,
          timeoutMs,
          topicData: groupByTopic(list).map(([name, parts]) => ({
            name,
            partitionData: parts.map((b) => ({ index: b.partition, records: b.batch })),
          })),
        };
        if (acks === 0) {
          await this.#client.sendTo(leader, Produce, request, { expectResponse: false });
          for (const b of list) this.#complete(b, -1, -1, results);
          return;
        }
        const response = await this.#client.sendTo(leader, Produce, request, { timeoutMs: timeoutMs + this.#client.requestTimeoutMs });
        failures.push(...this.#applyResponse(list, response, results));
      }),
    );
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') continue;
      const error = outcome.reason;
      if (error instanceof GregorError && error.retriable) failures.push(error);
      else throw error;
    }
    return failures;
  }

  #applyResponse(list: PartitionBatch[], response: ProduceResponse, results: RecordMetadata[]): GregorError[] {
    const failures: GregorError[] = [];
    for (const b of list) {
      const p = response.responses.find((t) => t.name === b.topic)?.partitionResponses.find((x) => x.index === b.partition);
      if (!p) {
        failures.push(new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `Produce response has no result for ${b.topic}-${b.partition}`));
        continue;
      }
      if (p.errorCode === ErrorCode.NONE) {
        this.#complete(b, p.baseOffset, p.logAppendTimeMs, results);
        continue;
      }
      const error = new KafkaProtocolError(p.errorCode, `produce to ${b.topic}-${b.partition} failed with ${errorName(p.errorCode)}`);
      if (!error.retriable) throw error;
      failures.push(error);
    }
    return failures;
  }

  #complete(b: PartitionBatch, baseOffset: number, logAppendTime: number, results: RecordMetadata[]): void {
    b.done = true;
    b.indexes.forEach((index, i) => {
      const r = results[index]!;
      r.partition = b.partition;
      r.offset = baseOffset < 0 ? -1 : baseOffset + i;
      r.logAppendTime = logAppendTime;
      if (logAppendTime >= 0) r.timestamp = logAppendTime;
    });
  }
}

function groupByTopic(list: PartitionBatch[]): [string, PartitionBatch[]][] {
  const out = new Map<string, PartitionBatch[]>();
  for (const b of list) out.set(b.topic, [...(out.get(b.topic) ?? []), b]);
  return [...out];
}

function checkAcks(acks: number): Acks {
  if (acks !== -1 && acks !== 0 && acks !== 1) throw new ConfigError(`acks must be -1 (all), 0 or 1, got ${acks}`);
  return acks;
}

function checkCompression(compression: string): CompressionName {
  if (compression !== 'none' && compression !== 'gzip') throw new ConfigError(`compression must be "none" or "gzip", got "${compression}"`);
  return compression;
}
