import type { PartitionTopicInfo } from './partition-topic-info.js';

/** Whole record batches fetched for one partition, queued for a stream (Kafka's FetchedDataChunk). */
export interface FetchedDataChunk {
  /** Complete RecordBatches only; empty when the next batch is larger than the fetch size. */
  records: Buffer;
  info: PartitionTopicInfo;
  /** The offset this chunk was fetched from (batches may start before it). */
  fetchOffset: number;
}

/** Put into every stream's queue by shutdown: iteration ends when it is taken. */
export const SHUTDOWN_COMMAND = Symbol('shutdown');

export type QueueItem = FetchedDataChunk | typeof SHUTDOWN_COMMAND;
