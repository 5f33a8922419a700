import type { ConsumedChunk } from './consumed-chunk.js';
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
  /** The fetched chunks being handed out, each decoding its records as they are asked for. */
  #chunks: ConsumedChunk[] = [];
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
    let value: ConsumedRecord | undefined;
    try {
      value = this.#nextBuffered();
    } catch (err) {
      return this.#finish().then(() => Promise.reject(err));
    }
    if (value !== undefined) return Promise.resolve({ value, done: false });
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
      for (;;) {
        const chunks = await this.#run.nextBatch(this.#signal);
        if (chunks === null) {
          await this.#finish();
          return { value: undefined, done: true };
        }
        this.#chunks = chunks;
        this.#next = 0;
        const value = this.#nextBuffered();
        if (value !== undefined) return { value, done: false };
      }
    } catch (err) {
      await this.#finish();
      throw err;
    }
  }

  /** The next record of the chunks at hand, or undefined when they are used up. */
  #nextBuffered(): ConsumedRecord | undefined {
    const chunks = this.#chunks;
    while (this.#next < chunks.length) {
      const value = chunks[this.#next]!.next();
      if (value !== undefined) return value;
      this.#next++;
    }
    return undefined;
  }

  async #finish(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    this.#chunks = [];
    await this.#run?.close();
  }
}
