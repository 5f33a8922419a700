import { DEFAULT_MAX_DECOMPRESSED_BYTES, decodeRecordSetPrefixWith, type DecodedRecordBatch } from '@gregor/protocol';
import { consumedRecordFactory } from '@gregor/client';
import { CorruptDataError, type Logger } from '@gregor/common';
import type { ChunkQueue } from './chunk-queue.js';
import { ConsumerTimeoutError, MessageSizeTooLargeError } from './consumer-errors.js';
import { SHUTDOWN_COMMAND, type FetchedDataChunk } from './fetched-data-chunk.js';
import type { MessageAndMetadata } from './message-and-metadata.js';
import type { PartitionTopicInfo } from './partition-topic-info.js';

/**
 * Kafka's ConsumerIterator as an async iterator: takes chunks from the stream's queue (waiting at most
 * `consumer.timeout.ms`, then rejecting with ConsumerTimeoutError and staying usable), decodes their
 * batches (deep iteration: compressed batches are expanded), skips records below the partition's
 * consumed offset, and advances `consumedOffset` to offset + 1 for each record it hands out.
 * Iteration ends after shutdown.
 */
export class ConsumerIterator implements AsyncIterator<MessageAndMetadata> {
  readonly #queue: ChunkQueue;
  readonly #timeoutMs: number;
  readonly #log: Logger;
  #info: PartitionTopicInfo | null = null;
  #batches: DecodedRecordBatch<MessageAndMetadata>[] = [];
  /** A batch of the chunk that cannot be decoded: thrown once the batches before it are handed out. */
  #failure: CorruptDataError | null = null;
  #batchIndex = 0;
  #recordIndex = 0;
  #done = false;

  constructor(queue: ChunkQueue, consumerTimeoutMs: number, log: Logger) {
    this.#queue = queue;
    this.#timeoutMs = consumerTimeoutMs;
    this.#log = log;
  }

  /** Drops the current chunk (a rebalance took its partition away). */
  clearCurrentChunk(): void {
    this.#info = null;
    this.#batches = [];
    this.#failure = null;
    this.#batchIndex = 0;
    this.#recordIndex = 0;
  }

  next(): Promise<IteratorResult<MessageAndMetadata>> {
    let ready: MessageAndMetadata | undefined;
    try {
      ready = this.#nextFromChunk();
    } catch (err) {
      return Promise.reject(err);
    }
    if (ready) return Promise.resolve({ done: false, value: ready });
    if (this.#done) return Promise.resolve({ done: true, value: undefined });
    return this.#nextChunk();
  }

  /** Breaking out of a for-await loop leaves the stream usable: only shutdown ends it. */
  return(): Promise<IteratorResult<MessageAndMetadata>> {
    return Promise.resolve({ done: true, value: undefined });
  }

  async #nextChunk(): Promise<IteratorResult<MessageAndMetadata>> {
    for (;;) {
      const item = await this.#queue.take(this.#timeoutMs);
      if (item === undefined) throw new ConsumerTimeoutError(this.#timeoutMs);
      if (item === SHUTDOWN_COMMAND) {
        this.#done = true;
        this.#queue.put(SHUTDOWN_COMMAND); // other iterators of the same stream end too
        return { done: true, value: undefined };
      }
      this.#load(item);
      const ready = this.#nextFromChunk();
      if (ready) return { done: false, value: ready };
    }
  }

  #load(chunk: FetchedDataChunk): void {
    const info = chunk.info;
    if (chunk.records.length === 0) throw new MessageSizeTooLargeError(info.topic, info.partition, chunk.fetchOffset, info.fetchSize);
    if (info.consumedOffset < chunk.fetchOffset) {
      // Kafka logs this too: the fetcher was reset past what was consumed (offset out of range).
      this.#log.warn({ topic: info.topic, partition: info.partition, consumed: info.consumedOffset, fetchOffset: chunk.fetchOffset }, 'consumed offset is behind the chunk: skipping ahead, messages may be lost');
      info.consumedOffset = chunk.fetchOffset;
    }
    // A batch may inflate to the larger of the fetch size and 50 MiB; past that it is refused, not inflated.
    // Each record decoded straight into the MessageAndMetadata handed out (one object per record, not two).
    const { batches, error } = decodeRecordSetPrefixWith(
      chunk.records,
      { maxDecompressedBytes: Math.max(info.fetchSize, DEFAULT_MAX_DECOMPRESSED_BYTES) },
      consumedRecordFactory(info.topic, info.partition),
    );
    this.#info = info;
    this.#batches = batches;
    this.#failure = error && new CorruptDataError(`${info.topic}-${info.partition} at fetch offset ${chunk.fetchOffset}: ${error.message}`, { cause: error });
    this.#batchIndex = 0;
    this.#recordIndex = 0;
  }

  #nextFromChunk(): MessageAndMetadata | undefined {
    const info = this.#info;
    if (!info) return undefined;
    while (this.#batchIndex < this.#batches.length) {
      const batch = this.#batches[this.#batchIndex]!;
      if (batch.isControl || this.#recordIndex >= batch.records.length) {
        this.#batchIndex++;
        this.#recordIndex = 0;
        continue;
      }
      const r = batch.records[this.#recordIndex++]!;
      if (r.offset < info.consumedOffset) continue; // a batch may start before the fetch offset
      info.consumedOffset = r.offset + 1;
      info.consumedCount++;
      return r;
    }
    const failure = this.#failure;
    this.clearCurrentChunk();
    if (failure) throw failure;
    return undefined;
  }
}
