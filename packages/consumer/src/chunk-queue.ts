import type { QueueItem } from './fetched-data-chunk.js';

type Waiter = (item: QueueItem | undefined) => void;

/**
 * The bounded queue between fetchers and one stream (Kafka's LinkedBlockingQueue of
 * `queued.max.message.chunks`). Fetchers put without blocking (their loop is shared with the replica
 * fetcher and cannot block per partition) and pause a partition once the queue is full; `onSpace`
 * listeners resume them when the stream takes a chunk. So a queue holds at most its capacity plus one
 * chunk per partition of a single fetch response.
 */
export class ChunkQueue {
  readonly capacity: number;
  #items: QueueItem[] = [];
  #waiters: Waiter[] = [];
  #spaceListeners = new Set<() => void>();
  #bytes = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#items.length;
  }

  /** Bytes of record data held (for the memory bound). */
  get bytes(): number {
    return this.#bytes;
  }

  get full(): boolean {
    return this.#items.length >= this.capacity;
  }

  /** Adds an item (a waiting taker gets it at once); returns whether there is still room. */
  put(item: QueueItem): boolean {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(item);
    else {
      this.#items.push(item);
      this.#bytes += typeof item === 'symbol' ? 0 : item.records.length;
    }
    return !this.full;
  }

  /** The next item at once, or undefined. */
  poll(): QueueItem | undefined {
    const item = this.#items.shift();
    if (item !== undefined) this.#taken(item);
    return item;
  }

  /** The next item, waiting up to `timeoutMs` (< 0: forever); undefined on timeout. */
  take(timeoutMs: number): Promise<QueueItem | undefined> {
    const item = this.poll();
    if (item !== undefined) return Promise.resolve(item);
    if (timeoutMs === 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = (value) => {
        clearTimeout(timer);
        resolve(value);
      };
      this.#waiters.push(waiter);
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          resolve(undefined);
        }, timeoutMs);
      }
    });
  }

  /** Drops every queued chunk (rebalance); waiting takers keep waiting. */
  clear(): void {
    this.#items = [];
    this.#bytes = 0;
    this.#notifySpace();
  }

  /** Called whenever room appears; returns the unsubscribe function. */
  onSpace(listener: () => void): () => void {
    this.#spaceListeners.add(listener);
    return () => this.#spaceListeners.delete(listener);
  }

  #taken(item: QueueItem): void {
    this.#bytes -= typeof item === 'symbol' ? 0 : item.records.length;
    if (!this.full) this.#notifySpace();
  }

  #notifySpace(): void {
    for (const listener of [...this.#spaceListeners]) listener();
  }
}
