import { forEachBatch } from '@gregor/protocol';
import type { ChunkQueue } from './chunk-queue.js';

/**
 * One owned partition (Kafka's PartitionTopicInfo): where the fetcher is (`fetchedOffset`, the next
 * offset to fetch), where the application is (`consumedOffset`, the next offset to hand out — what
 * gets committed), and the stream queue its chunks go to.
 */
export class PartitionTopicInfo {
  readonly topic: string;
  readonly partition: number;
  readonly queue: ChunkQueue;
  readonly fetchSize: number;
  consumedOffset: number;
  fetchedOffset: number;
  /** Records handed to the application since this info was created. */
  consumedCount = 0;
  /** The leader's high watermark at the last fetch (for lag). */
  highWatermark = -1;

  constructor(topic: string, partition: number, queue: ChunkQueue, offset: number, fetchSize: number) {
    this.topic = topic;
    this.partition = partition;
    this.queue = queue;
    this.consumedOffset = offset;
    this.fetchedOffset = offset;
    this.fetchSize = fetchSize;
  }

  get key(): string {
    return `${this.topic}-${this.partition}`;
  }

  resetFetchOffset(offset: number): void {
    this.fetchedOffset = offset;
  }

  resetConsumedOffset(offset: number): void {
    this.consumedOffset = offset;
  }

  /**
   * Queues the whole batches of a fetch response and returns the next fetch offset (after the last
   * shallow batch). A full-size response without one whole batch queues an empty chunk: the stream
   * then raises MessageSizeTooLargeError, as Kafka does. Returns whether the queue still has room.
   */
  enqueue(recordSet: Buffer | null | undefined, fetchOffset: number): { nextOffset: number; room: boolean } {
    if (!recordSet || recordSet.length === 0) return { nextOffset: fetchOffset, room: !this.queue.full };
    let next = fetchOffset;
    const complete = forEachBatch(recordSet, (header) => {
      next = Math.max(next, header.lastOffset + 1);
    }, { allowPartialTail: true });
    // Partial data that is not a whole fetch's worth was cut by the response limit: fetch again.
    if (complete === 0 && recordSet.length < this.fetchSize) return { nextOffset: fetchOffset, room: !this.queue.full };
    const records = recordSet.subarray(0, complete);
    const room = this.queue.put({ records, info: this, fetchOffset });
    this.fetchedOffset = next;
    return { nextOffset: next, room };
  }
}
