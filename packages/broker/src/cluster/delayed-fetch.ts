import { DelayedOperation } from '../purgatory/delayed-operation.js';

/**
 * Long-poll fetch: waits up to max_wait_ms until min_bytes can be returned. `readAll` does the real
 * read; it is re-run whenever a watched partition's log end or high watermark moves, which is cheap
 * because reads come from the page cache.
 */
export class DelayedFetch<R extends { bytes: number; mustReturn: boolean }> extends DelayedOperation {
  readonly #minBytes: number;
  readonly #readAll: () => R;
  readonly #respond: (result: R) => void;
  readonly #discard: ((result: R) => void) | undefined;
  #ready: R | null = null;

  /** `discard` hears of a read that is not returned (its pooled buffers go back). */
  constructor(maxWaitMs: number, minBytes: number, readAll: () => R, respond: (result: R) => void, discard?: (result: R) => void) {
    super(maxWaitMs);
    this.#minBytes = minBytes;
    this.#readAll = readAll;
    this.#respond = respond;
    this.#discard = discard;
  }

  tryComplete(): boolean {
    const result = this.#readAll();
    if (result.mustReturn || result.bytes >= this.#minBytes) {
      this.#ready = result;
      return this.forceComplete();
    }
    this.#discard?.(result);
    return false;
  }

  protected override onComplete(): void {
    // Expired or forced at shutdown: read once more so that whatever arrived is returned.
    this.#respond(this.#ready ?? this.#readAll());
  }
}
