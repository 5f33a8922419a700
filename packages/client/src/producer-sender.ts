import { backoffMs, ErrorCode, GregorError, KafkaProtocolError, errorName } from '@gregor/common';
import { CompressionType, Produce, type ProduceResponse } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import type { Acks } from './producer.js';
import type { ProducerIdState } from './producer-id-state.js';
import { tpKey, type ProducerBatch, type RecordAccumulator } from './record-accumulator.js';

export interface SenderConfig {
  retries: number;
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  deliveryTimeoutMs: number;
  maxInFlight: number;
}

/**
 * Kafka's Sender: drains the accumulator's ready batches with at most one request in flight per partition (up to
 * 5 with idempotence) so records of a partition are written in order; one Produce request per leader. Retriable
 * failures put the batch back at the head of its partition's queue and refresh metadata; it is resent after a
 * jittered backoff until `retries` or `delivery.timeout.ms` runs out. With idempotence it numbers batches.
 */
export class Sender {
  readonly #client: KafkaClient;
  readonly #accumulator: RecordAccumulator;
  readonly #config: SenderConfig;
  /** Idempotence: producer id and sequences, or null without it. */
  readonly #idempotence: ProducerIdState | null;
  /** Idempotence: a batch's sequence is lost (it failed): once nothing is in flight, start over with a new producer id. */
  #producerIdResetPending = false;
  /** Per partition, Produce requests awaiting an answer. */
  readonly #inFlight = new Map<string, number>();
  #drainScheduled = false;
  #draining = false;
  #drainAgain = false;
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;
  #idleWaiters: (() => void)[] = [];

  constructor(client: KafkaClient, accumulator: RecordAccumulator, idempotence: ProducerIdState | null, config: SenderConfig) {
    this.#client = client;
    this.#accumulator = accumulator;
    this.#idempotence = idempotence;
    this.#config = config;
  }

  /** Nothing waits in the accumulator and nothing is in flight. */
  get idle(): boolean {
    return this.#accumulator.queues.size === 0 && this.#inFlight.size === 0;
  }

  /** Resolves after the next drain that leaves the sender idle. */
  nextIdle(): Promise<void> {
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  scheduleDrain(): void {
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
      this.scheduleDrain();
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
    if (this.idle) for (const w of this.#idleWaiters.splice(0)) w();
  }

  /**
   * Kafka's ready/drain: a leader is ready when the head batch of one of its partitions is (full, lingered,
   * flushing); then the head batch of every partition it leads without a request in flight goes, lingered
   * or not, grouped into one Produce request per leader.
   */
  async #sendReady(): Promise<boolean> {
    const now = Date.now();
    if (this.#idempotence && !(await this.#readyToSequence(now))) return false;
    const acc = this.#accumulator;
    let nextWake = Infinity;
    const candidates: { k: string; batch: ProducerBatch; leader: number }[] = [];
    const readyLeaders = new Set<number>();
    for (const [k, queue] of [...acc.queues]) {
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
      if (acc.ready(batch, now)) readyLeaders.add(leader);
      else nextWake = Math.min(nextWake, batch.createdAt + acc.lingerMs);
    }
    const byLeader = new Map<string, { leader: number; acks: Acks; timeoutMs: number; batches: ProducerBatch[] }>();
    let dispatched = false;
    for (const { k, batch, leader } of candidates) {
      if (!readyLeaders.has(leader) || acc.queues.get(k)?.[0] !== batch || !this.#mayDispatch(k, batch)) continue;
      acc.close(batch);
      acc.shift(k);
      this.#inFlight.set(k, (this.#inFlight.get(k) ?? 0) + 1);
      if (this.#idempotence && batch.baseSequence < 0) {
        // Sequences are taken when a batch first goes out, in queue order; a retry keeps them.
        batch.producerId = this.#idempotence.producerId;
        batch.producerEpoch = this.#idempotence.producerEpoch;
        batch.baseSequence = this.#idempotence.takeSequences(k, batch.builder.count);
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
    return batch.baseSequence >= 0 ? inFlight === 0 : inFlight < this.#config.maxInFlight;
  }

  /**
   * Idempotence: a producer id before anything is sent. After a reset, once nothing is in flight, every waiting
   * batch drops its sequence and a new producer id is fetched; the batches then go out numbered from 0 again.
   */
  async #readyToSequence(now: number): Promise<boolean> {
    const state = this.#idempotence!;
    const queues = this.#accumulator.queues;
    if (this.#producerIdResetPending) {
      if (this.#inFlight.size > 0) return false;
      this.#producerIdResetPending = false;
      state.reset();
      for (const queue of queues.values()) {
        for (const b of queue) {
          b.baseSequence = -1;
          b.encoded = null;
        }
      }
    }
    if (state.hasProducerId || queues.size === 0) return true;
    try {
      await state.ensureProducerId(now + this.#config.deliveryTimeoutMs);
      return true;
    } catch (error) {
      // No producer id within delivery.timeout.ms: the waiting batches fail.
      for (const queue of [...queues.values()]) for (const b of [...queue]) this.#fail(b, error);
      return false;
    }
  }

  async #produce(leader: number, acks: Acks, timeoutMs: number, batches: ProducerBatch[]): Promise<void> {
    for (const b of batches) {
      const sequenced = b.baseSequence >= 0;
      b.encoded ??= b.builder.build({
        compression: CompressionType[b.compression],
        producerId: sequenced ? b.producerId : -1,
        producerEpoch: sequenced ? b.producerEpoch : -1,
        baseSequence: sequenced ? b.baseSequence : -1,
      });
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
      this.scheduleDrain();
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
    const wait = backoffMs(Math.max(0, batch.attempts - 1), this.#config.retryBackoffMs, this.#config.retryBackoffMaxMs);
    let retriable = error instanceof GregorError && error.retriable;
    if (this.#idempotence && wasSent && error instanceof GregorError) retriable = this.#sequenceErrorRetriable(batch, error.code, retriable);
    if (!retriable || batch.attempts > this.#config.retries || now + wait - batch.createdAt >= this.#config.deliveryTimeoutMs) {
      this.#fail(batch, error);
      return;
    }
    // Not before the metadata refresh is done: the resend must go to the new leader.
    batch.retryAt = Infinity;
    if (wasSent) this.#accumulator.reenqueue(batch);
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
    this.#accumulator.remove(batch);
    for (const { pending } of batch.slots) {
      if (pending.settled) continue;
      pending.settled = true;
      pending.reject(error);
    }
    batch.slots = [];
  }

  #complete(b: ProducerBatch, baseOffset: number, logAppendTime: number): void {
    if (this.#idempotence && b.baseSequence >= 0 && b.producerId === this.#idempotence.producerId) {
      this.#idempotence.acknowledge(tpKey(b.topic, b.partition), (b.baseSequence + b.builder.count - 1) % 0x80000000);
    }
    let i = 0; // the record's offset delta in the batch
    for (const { pending, index, count } of b.slots) {
      for (let j = index; j < index + count; j++, i++) {
        const r = pending.results[j]!;
        r.partition = b.partition;
        r.offset = baseOffset < 0 ? -1 : baseOffset + i;
        r.logAppendTime = logAppendTime;
        if (logAppendTime >= 0) r.timestamp = logAppendTime;
      }
      pending.remaining -= count;
      if (pending.remaining === 0 && !pending.settled) {
        pending.settled = true;
        pending.resolve(pending.results);
      }
    }
    b.slots = [];
  }
}

function groupByTopic(list: ProducerBatch[]): [string, ProducerBatch[]][] {
  const out = new Map<string, ProducerBatch[]>();
  for (const b of list) out.set(b.topic, [...(out.get(b.topic) ?? []), b]);
  return [...out];
}
