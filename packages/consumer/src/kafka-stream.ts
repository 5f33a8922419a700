import type { Logger } from '@gregor/common';
import { ChunkQueue } from './chunk-queue.js';
import { ConsumerIterator } from './consumer-iterator.js';
import type { MessageAndMetadata } from './message-and-metadata.js';

/**
 * One consumer stream (Kafka's KafkaStream): a bounded queue of fetched chunks and the iterator over
 * it. `for await (const m of stream)` reads messages; one reader per stream, as in Kafka.
 */
export class KafkaStream implements AsyncIterable<MessageAndMetadata> {
  readonly queue: ChunkQueue;
  readonly #iterator: ConsumerIterator;

  constructor(queuedMaxMessageChunks: number, consumerTimeoutMs: number, log: Logger) {
    this.queue = new ChunkQueue(queuedMaxMessageChunks);
    this.#iterator = new ConsumerIterator(this.queue, consumerTimeoutMs, log);
  }

  [Symbol.asyncIterator](): ConsumerIterator {
    return this.#iterator;
  }

  iterator(): ConsumerIterator {
    return this.#iterator;
  }

  /** Drops the iterator's current chunk (rebalance); the queue is cleared by the fetcher manager. */
  clear(): void {
    this.#iterator.clearCurrentChunk();
  }
}
