import { backoffMs, ErrorCode, KafkaProtocolError, errorName } from '@gregor/common';
import { InitProducerId } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { isRetriableError } from '@gregor/net';

const INT32_MAX = 0x7fffffff;

/**
 * An idempotent producer's identity and sequence numbers (the idempotent half of Kafka's TransactionManager): a
 * producer id and epoch from InitProducerId, and per partition the next sequence to hand out and the last one the
 * broker acknowledged. A reset forgets them all; the next batches get a fresh producer id and start again at 0.
 */
export class ProducerIdState {
  readonly #client: KafkaClient;
  readonly #retryBackoffMs: number;
  readonly #retryBackoffMaxMs: number;
  producerId = -1;
  producerEpoch = -1;
  readonly #nextSequence = new Map<string, number>();
  readonly #lastAcked = new Map<string, number>();
  #init: Promise<void> | null = null;

  constructor(client: KafkaClient, backoff: { retryBackoffMs: number; retryBackoffMaxMs: number }) {
    this.#client = client;
    this.#retryBackoffMs = backoff.retryBackoffMs;
    this.#retryBackoffMaxMs = backoff.retryBackoffMaxMs;
  }

  get hasProducerId(): boolean {
    return this.producerId >= 0;
  }

  /** Gets a producer id unless one is held (InitProducerId with a null transactional id, to any broker). */
  ensureProducerId(deadlineMs: number): Promise<void> {
    if (this.hasProducerId) return Promise.resolve();
    this.#init ??= this.#initProducerId(deadlineMs).finally(() => (this.#init = null));
    return this.#init;
  }

  async #initProducerId(deadlineMs: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let error: unknown;
      try {
        const r = await this.#client.sendToAny(InitProducerId, { transactionalId: null, transactionTimeoutMs: INT32_MAX });
        if (r.errorCode === ErrorCode.NONE) {
          this.producerId = r.producerId;
          this.producerEpoch = r.producerEpoch;
          return;
        }
        error = new KafkaProtocolError(r.errorCode, `InitProducerId failed with ${errorName(r.errorCode)}`);
      } catch (err) {
        error = err;
      }
      const wait = backoffMs(attempt, this.#retryBackoffMs, this.#retryBackoffMaxMs);
      if (!isRetriableError(error) || Date.now() + wait > deadlineMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Takes `count` sequences of a partition for a new batch; returns the first. */
  takeSequences(partitionKey: string, count: number): number {
    const first = this.#nextSequence.get(partitionKey) ?? 0;
    this.#nextSequence.set(partitionKey, first + count > INT32_MAX ? first + count - INT32_MAX - 1 : first + count);
    return first;
  }

  /** The broker has the batch ending at `lastSequence`. */
  acknowledge(partitionKey: string, lastSequence: number): void {
    const previous = this.#lastAcked.get(partitionKey) ?? -1;
    if (lastSequence > previous || previous - lastSequence > INT32_MAX / 2) this.#lastAcked.set(partitionKey, lastSequence);
  }

  /** The sequence the broker expects next in the partition, as far as acknowledgements tell. */
  expectedSequence(partitionKey: string): number {
    const last = this.#lastAcked.get(partitionKey) ?? -1;
    return last === INT32_MAX ? 0 : last + 1;
  }

  /** Forgets the producer id and every sequence. */
  reset(): void {
    this.producerId = -1;
    this.producerEpoch = -1;
    this.#nextSequence.clear();
    this.#lastAcked.clear();
  }
}
