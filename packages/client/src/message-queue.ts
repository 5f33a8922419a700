import { whenAborted } from '@gregor/common';
import { AbortError } from '@gregor/net';

/**
 * A bounded FIFO between the Reader's fetch loops (producers) and fetchMessage() (the consumer): pushMany
 * waits while the queue is full (back-pressure, kafka-go's QueueCapacity), take waits while it is empty.
 */
export class MessageQueue<T> {
  readonly capacity: number;
  #items: T[] = [];
  /** Index of the first queued item in #items (slots before it were taken). */
  #head = 0;
  #takers: { resolve: (item: T) => void; reject: (error: unknown) => void }[] = [];
  #space: (() => void)[] = [];

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Queues `items` in order, waiting for space as needed; false (the rest dropped) when `signal` aborts first. */
  pushMany(items: readonly T[], signal: AbortSignal): Promise<boolean> {
    let i = 0;
    return this.pushFrom(() => items[i++], signal);
  }

  /**
   * Queues what `next` hands out (until undefined) in order, taking the next item only when there is room for it,
   * so a lazily decoded source keeps no more items alive than the queue holds; false (the rest left) when `signal`
   * aborts first. An error thrown by `next` rejects, with the items before it queued.
   */
  async pushFrom(next: () => T | undefined, signal: AbortSignal): Promise<boolean> {
    let item = next();
    while (item !== undefined) {
      if (signal.aborted) return false;
      while (item !== undefined && this.#takers.length > 0) {
        this.#takers.shift()!.resolve(item);
        item = next();
      }
      while (item !== undefined && this.size < this.capacity) {
        this.#items.push(item);
        item = next();
      }
      if (item !== undefined) await this.#waitForSpace(signal);
    }
    return !signal.aborted;
  }

  push(item: T, signal: AbortSignal): Promise<boolean> {
    return this.pushMany([item], signal);
  }

  #waitForSpace(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let stopWatching = (): void => undefined;
      const wake = () => {
        stopWatching();
        const i = this.#space.indexOf(wake);
        if (i >= 0) this.#space.splice(i, 1);
        resolve();
      };
      this.#space.push(wake);
      stopWatching = whenAborted(signal, wake);
    });
  }

  take(signal?: AbortSignal): Promise<T> {
    if (this.size > 0) {
      const item = this.#items[this.#head]!;
      this.#items[this.#head++] = undefined as T;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      // Pushers wake once half the queue is free, so they queue records in runs rather than one per take.
      if (this.#space.length > 0 && this.size <= this.capacity >> 1) this.#space[0]!();
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
    this.#items = [];
    this.#head = 0;
    for (const wake of [...this.#space]) wake();
  }

  /** Fails every waiting take (the Reader is closing). */
  fail(error: unknown): void {
    for (const t of this.#takers.splice(0)) t.reject(error);
  }
}
