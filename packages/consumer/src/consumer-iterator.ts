import { decompressionCap, RecordSetCursor } from '@gregor/protocol';
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
 * records one at a time as they are asked for (deep iteration: compressed batches are expanded when reached; a
 * whole chunk decoded at once would keep thousands of records alive per stream), skips records below the partition's
 * consumed offset, and advances `consumedOffset` to offset + 1 for each record it hands out.
 * Iteration ends after shutdown.
 */
export class ConsumerIterator implements AsyncIterator<MessageAndMetadata> {
  readonly #queue: ChunkQueue;
  readonly #timeoutMs: number;
  readonly #log: Logger;
  #info: PartitionTopicInfo | null = null;
  /** The current chunk's records; it throws when it reaches a batch that cannot be decoded. */
  #records: RecordSetCursor<MessageAndMetadata> | null = null;
  #chunkFetchOffset = 0;
  #done = false;

  constructor(queue: ChunkQueue, consumerTimeoutMs: number, log: Logger) {
    this.#queue = queue;
    this.#timeoutMs = consumerTimeoutMs;
    this.#log = log;
  }

  /** Drops the current chunk (a rebalance took its partition away). */
  clearCurrentChunk(): void {
    this.#info = null;
    this.#records = null;
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
    this.#records = new RecordSetCursor(
      chunk.records,
      { maxDecompressedBytes: decompressionCap(info.fetchSize) },
      consumedRecordFactory(info.topic, info.partition),
    );
    this.#info = info;
    this.#chunkFetchOffset = chunk.fetchOffset;
  }

  #nextFromChunk(): MessageAndMetadata | undefined {
    const info = this.#info;
    const records = this.#records;
    if (!info || !records) return undefined;
    for (;;) {
      let r: MessageAndMetadata | undefined;
      try {
        r = records.next();
      } catch (err) {
        this.clearCurrentChunk();
        if (!(err instanceof CorruptDataError)) throw err;
        throw new CorruptDataError(`${info.topic}-${info.partition} at fetch offset ${this.#chunkFetchOffset}: ${(err as Error).message}`, { cause: err });
      }
      if (r === undefined) {
        this.clearCurrentChunk();
        return undefined;
      }
      if (r.offset < info.consumedOffset) continue; // a batch may start before the fetch offset
      info.consumedOffset = r.offset + 1;
      info.consumedCount++;
      return r;
    }
  }
}
