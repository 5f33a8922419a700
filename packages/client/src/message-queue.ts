import { AbortError } from './retry.js';

/**
 * A bounded FIFO between the Reader's fetch loops (producers) and fetchMessage() (the consumer): push waits
 * while the queue is full (back-pressure, kafka-go's QueueCapacity), take waits while it is empty.
 */
export class MessageQueue<T> {
  readonly capacity: number;
  readonly #items: T[] = [];
  #takers: { resolve: (item: T) => void; reject: (error: unknown) => void }[] = [];
  #space: (() => void)[] = [];

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#items.length;
  }

  /** Resolves once the item is queued; returns false (item dropped) when `signal` aborts first. */
  async push(item: T, signal: AbortSignal): Promise<boolean> {
    while (this.#items.length >= this.capacity && this.#takers.length === 0) {
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', wake);
          this.#space = this.#space.filter((w) => w !== wake);
          resolve();
        };
        this.#space.push(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
    if (signal.aborted) return false;
    const taker = this.#takers.shift();
    if (taker) taker.resolve(item);
    else this.#items.push(item);
    return true;
  }

  take(signal?: AbortSignal): Promise<T> {
    if (this.#items.length > 0) {
      const item = this.#items.shift()!;
      this.#space.shift()?.();
      return Promise.resolve(item);
    }
    if (signal?.aborted) return Promise.reject(new AbortError('fetchMessage aborted', { cause: signal.reason }));
    return new Promise<T>((resolve, reject) => {
      const entry = {
        resolve: (item: T) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(item);
        },
        reject,
      };
      const onAbort = () => {
        this.#takers = this.#takers.filter((t) => t !== entry);
        reject(new AbortError('fetchMessage aborted', { cause: signal?.reason }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#takers.push(entry);
    });
  }

  /** Drops queued items (a rebalance: they will be read again by whoever owns their partitions). */
  clear(): void {
    this.#items.length = 0;
    for (const wake of this.#space.splice(0)) wake();
  }

  /** Fails every waiting take (the Reader is closing). */
  fail(error: unknown): void {
    for (const t of this.#takers.splice(0)) t.reject(error);
  }
}
