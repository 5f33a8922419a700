import type { RecordInput } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import type { DefaultPartitioner } from './partitioner.js';
import type { Acks, CompressionName, RecordMetadata } from './producer.js';
import { RecordBatchBuilder } from './record-batch-builder.js';

/** One send() call waiting for all of its records. */
export interface PendingSend {
  results: RecordMetadata[];
  remaining: number;
  settled: boolean;
  resolve(results: RecordMetadata[]): void;
  reject(error: unknown): void;
}

/** Consecutive records of one send in a batch: its results from `index` on, `count` of them (one object per run, not per record). */
export interface SendRun {
  pending: PendingSend;
  index: number;
  count: number;
}

/** Records of one partition going out as one RecordBatch (Kafka's ProducerBatch). */
export interface ProducerBatch {
  topic: string;
  partition: number;
  acks: Acks;
  compression: CompressionName;
  timeoutMs: number;
  /** The records, written as they are appended (Kafka's MemoryRecordsBuilder). */
  builder: RecordBatchBuilder;
  /** Who waits for the records, in batch order: runs of consecutive records of one send. */
  slots: SendRun[];
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

export interface AppendOptions {
  acks: Acks;
  compression: CompressionName;
  timeoutMs: number;
  keyless: boolean;
  numPartitions: number;
  available: number[];
}

const RECORD_OVERHEAD = 20;
const BATCH_OVERHEAD = 61;

function recordSize(key: Buffer | null, value: Buffer | null, headers: RecordInput['headers']): number {
  let size = RECORD_OVERHEAD + (key?.length ?? 0) + (value?.length ?? 0);
  for (const h of headers) size += h.key.length + (h.value?.length ?? 0) + 4;
  return size;
}

export const tpKey = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * Kafka's RecordAccumulator: per partition a queue of batches; records go into the last open batch until it
 * holds `batch.size` bytes. A batch is ready when it is closed (full, or taken by the sender), lingered
 * `linger.ms`, or a flush is under way. Closing a batch of keyless records moves the sticky partition on (KIP-480).
 */
export class RecordAccumulator {
  readonly #client: KafkaClient;
  readonly #batchSize: number;
  readonly #lingerMs: number;
  readonly #partitioner: DefaultPartitioner;
  /** Per partition, the batches waiting in order; the head is the next to send. */
  readonly queues = new Map<string, ProducerBatch[]>();
  /** flush() calls under way: every batch is ready, lingered or not. */
  flushing = 0;

  constructor(client: KafkaClient, o: { batchSize: number; lingerMs: number; partitioner: DefaultPartitioner }) {
    this.#client = client;
    this.#batchSize = o.batchSize;
    this.#lingerMs = o.lingerMs;
    this.#partitioner = o.partitioner;
  }

  get lingerMs(): number {
    return this.#lingerMs;
  }

  /** Appends record `index` of a send (its result in `pending.results[index]`). */
  append(topic: string, partition: number, key: Buffer | null, value: Buffer | null, headers: RecordInput['headers'], timestamp: number, pending: PendingSend, index: number, o: AppendOptions): void {
    const k = tpKey(topic, partition);
    let queue = this.queues.get(k);
    if (!queue) this.queues.set(k, (queue = []));
    let batch = queue[queue.length - 1];
    const size = recordSize(key, value, headers);
    const fits = batch && !batch.closed && batch.acks === o.acks && batch.compression === o.compression && batch.timeoutMs === o.timeoutMs && batch.sizeBytes + size <= this.#batchSize;
    if (!fits) {
      if (batch && !batch.closed) this.close(batch, o.numPartitions, o.available);
      batch = {
        topic,
        partition,
        acks: o.acks,
        compression: o.compression,
        timeoutMs: o.timeoutMs,
        // Sized for the rest of this send (were its records all this size), up to batch.size: a send of one small
        // record does not take 16 KiB, which at a thousand sends a second was 16 MB/s of memory for V8 to collect.
        builder: new RecordBatchBuilder(timestamp, Math.min(this.#batchSize, size * (pending.results.length - index))),
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
    batch.builder.append(key, value, headers, timestamp);
    const run = batch.slots[batch.slots.length - 1];
    if (run && run.pending === pending && run.index + run.count === index) run.count++;
    else batch.slots.push({ pending, index, count: 1 });
    batch.sizeBytes += size;
    batch.keyless ||= o.keyless;
    if (batch.sizeBytes >= this.#batchSize) this.close(batch, o.numPartitions, o.available);
  }

  /** No more appends; keyless records move to another sticky partition (KIP-480). */
  close(batch: ProducerBatch, numPartitions?: number, available?: number[]): void {
    if (batch.closed) return;
    batch.closed = true;
    if (batch.keyless) {
      const topic = this.#client.topic(batch.topic);
      const n = numPartitions ?? topic?.partitions.length ?? 0;
      if (n > 0) this.#partitioner.onNewBatch(batch.topic, n, available ?? topic!.partitions.filter((p) => p.leader >= 0).map((p) => p.partition));
    }
  }

  ready(batch: ProducerBatch, now: number): boolean {
    return batch.closed || this.flushing > 0 || now - batch.createdAt >= this.#lingerMs;
  }

  /** Takes the head batch of a partition off its queue (it is being sent). */
  shift(k: string): void {
    const queue = this.queues.get(k)!;
    queue.shift();
    if (queue.length === 0) this.queues.delete(k);
  }

  /** A sent batch to retry goes back in sequence order, ahead of the batches never sent (several may be retried after one failure). */
  reenqueue(batch: ProducerBatch): void {
    const k = tpKey(batch.topic, batch.partition);
    const queue = this.queues.get(k) ?? [];
    let i = 0;
    while (batch.baseSequence >= 0 && i < queue.length && queue[i]!.baseSequence >= 0 && queue[i]!.baseSequence < batch.baseSequence) i++;
    queue.splice(i, 0, batch);
    this.queues.set(k, queue);
  }

  /** A failed batch leaves its queue. */
  remove(batch: ProducerBatch): void {
    const k = tpKey(batch.topic, batch.partition);
    const queue = this.queues.get(k);
    if (queue) {
      const i = queue.indexOf(batch);
      if (i >= 0) queue.splice(i, 1);
      if (queue.length === 0) this.queues.delete(k);
    }
  }
}
