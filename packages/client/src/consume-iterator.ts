import type { ConsumedRecord } from './consumed-record.js';
import type { ConsumeRun } from './consume-run.js';

/**
 * The records of a ConsumeRun, one at a time, for `for await`. Hand-written rather than an async generator: a
 * generator's `yield` costs several promise jobs per record, where this resolves each next() from the buffered run
 * at once (a measured ~100 ns per record, a sixth of the Consumer's budget at 1.5M records/s). The run starts on
 * the first next() (so errors such as an unknown topic surface there) and is closed when the records end, an
 * error ends them, or the loop is left early (return()).
 */
export class ConsumeIterator implements AsyncIterableIterator<ConsumedRecord> {
  readonly #start: () => Promise<ConsumeRun>;
  readonly #signal: AbortSignal | undefined;
  #run: ConsumeRun | null = null;
  #batch: ConsumedRecord[] = [];
  #next = 0;
  #finished = false;

  constructor(start: () => Promise<ConsumeRun>, signal: AbortSignal | undefined) {
    this.#start = start;
    this.#signal = signal;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ConsumedRecord>> {
    if (this.#next < this.#batch.length) return Promise.resolve({ value: this.#batch[this.#next++]!, done: false });
    return this.#refill();
  }

  async return(): Promise<IteratorResult<ConsumedRecord>> {
    await this.#finish();
    return { value: undefined, done: true };
  }

  async throw(error?: unknown): Promise<IteratorResult<ConsumedRecord>> {
    await this.#finish();
    throw error;
  }

  async #refill(): Promise<IteratorResult<ConsumedRecord>> {
    if (this.#finished) return { value: undefined, done: true };
    try {
      this.#run ??= await this.#start();
      const batch = await this.#run.nextBatch(this.#signal);
      if (batch === null) {
        await this.#finish();
        return { value: undefined, done: true };
      }
      this.#batch = batch;
      this.#next = 1;
      return { value: batch[0]!, done: false };
    } catch (err) {
      await this.#finish();
      throw err;
    }
  }

  async #finish(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    this.#batch = [];
    await this.#run?.close();
  }
}
