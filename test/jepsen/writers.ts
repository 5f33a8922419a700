// History writers: per partition, a few workers each sending fresh unique values one at a time (paced),
// retrying a value after a failure up to maxAttempts (every attempt recorded), then moving on.
import type { History } from './history.js';
import type { ProduceDriver } from './drivers.js';
import { SendError } from './drivers.js';

export interface WritersOptions {
  partitions: number[];
  workersPerPartition: number;
  /** Values per second per worker at most. */
  ratePerWorker: number;
  maxAttempts: number;
  retryBackoffMs: number;
  /** Makes one worker's driver; workers do not share clients, so one stuck request blocks only its worker. */
  driver(partition: number, worker: number): ProduceDriver;
}

export class Writers {
  readonly #history: History;
  readonly #options: WritersOptions;
  readonly #abort = new AbortController();
  #loops: Promise<void>[] = [];
  #drivers: ProduceDriver[] = [];

  constructor(history: History, options: WritersOptions) {
    this.#history = history;
    this.#options = options;
  }

  start(): void {
    for (const p of this.#options.partitions) {
      for (let w = 0; w < this.#options.workersPerPartition; w++) {
        const driver = this.#options.driver(p, w);
        this.#drivers.push(driver);
        this.#loops.push(this.#run(`w${p}.${w}:${driver.name}`, p, driver));
      }
    }
  }

  async #run(process: string, partition: number, driver: ProduceDriver): Promise<void> {
    const { ratePerWorker, maxAttempts, retryBackoffMs } = this.#options;
    const signal = this.#abort.signal;
    const interval = 1000 / ratePerWorker;
    let seq = 0;
    while (!signal.aborted) {
      const value = `${process.split(':')[0]}-${seq++}`;
      const started = Date.now();
      for (let attempt = 1; attempt <= maxAttempts && !signal.aborted; attempt++) {
        this.#history.record({ f: 'send', type: 'invoke', process, value, partition, attempt });
        try {
          const offset = await driver.send(partition, value);
          this.#history.record({ f: 'send', type: 'ok', process, value, partition, attempt, offset });
          break;
        } catch (err) {
          const e = err instanceof SendError ? err : new SendError(String(err), false);
          this.#history.record({ f: 'send', type: e.definite ? 'fail' : 'info', process, value, partition, attempt, error: e.message });
          await sleep(retryBackoffMs, signal);
        }
      }
      await sleep(interval - (Date.now() - started), signal);
    }
  }

  /** Stops sending; requests in flight finish (bounded by the drivers' timeouts) and are recorded. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled(this.#loops);
    await Promise.allSettled(this.#drivers.map((d) => d.close()));
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
