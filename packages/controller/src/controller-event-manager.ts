import type { Logger } from '@gregor/common';

/**
 * One queue, one loop (Kafka 1.1's ControllerEventManager): ZooKeeper watchers and requests only
 * enqueue typed events; the loop handles them one at a time, so controller state needs no locks.
 */
export interface ControllerEventBase {
  readonly type: string;
}

export class ControllerEventManager<E extends ControllerEventBase> {
  readonly #queue: E[] = [];
  readonly #handle: (event: E) => Promise<void>;
  /** Answers an event that will never be handled (dropped or refused), as Kafka's preempt does. */
  readonly #preempt: (event: E) => void;
  readonly #log: Logger;
  #wake: (() => void) | null = null;
  #running = false;
  #loop: Promise<void> | null = null;
  /** Time spent per event type, for logs and metrics. */
  readonly timings = new Map<string, { count: number; totalMs: number }>();

  constructor(handle: (event: E) => Promise<void>, log: Logger, preempt: (event: E) => void = () => {}) {
    this.#handle = handle;
    this.#preempt = preempt;
    this.#log = log;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  put(event: E): void {
    if (!this.#running) return this.#drop([event]);
    this.#queue.push(event);
    this.#wake?.();
  }

  /** Drops queued events (e.g. when resigning) without stopping the loop. */
  clear(): void {
    this.#drop(this.#queue.splice(0));
  }

  #drop(events: E[]): void {
    for (const e of events) {
      try {
        this.#preempt(e);
      } catch (err) {
        this.#log.error({ err, event: e.type }, 'controller event preemption failed');
      }
    }
  }

  get queueSize(): number {
    return this.#queue.length;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      const event = this.#queue.shift();
      if (!event) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = null;
        continue;
      }
      const started = performance.now();
      try {
        await this.#handle(event);
      } catch (err) {
        this.#log.error({ err, event: event.type }, 'controller event failed');
      }
      const t = this.timings.get(event.type) ?? { count: 0, totalMs: 0 };
      t.count++;
      t.totalMs += performance.now() - started;
      this.timings.set(event.type, t);
    }
  }

  /** Stops after the event being handled; queued events are dropped. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#drop(this.#queue.splice(0));
    this.#wake?.();
    await this.#loop;
  }
}
