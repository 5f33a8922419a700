import type { Connection } from '@gregor/net';
import type { ApiDefinition } from '@gregor/protocol';

interface InFlight {
  api: string;
  request: unknown;
  resolve(response: unknown): void;
  reject(err: Error): void;
}

/**
 * A leader at the other end of a fetcher's connection whose every answer the test gives, when it chooses: each request
 * stays in flight until `answer` (deferred promises, no timers), so a test can change the follower between a request
 * and its answer.
 */
export class ScriptedLeader {
  readonly #inFlight: InFlight[] = [];
  /** Handed to the test by `next` but not answered yet. */
  readonly #taken = new Set<InFlight>();
  readonly #waiters: { api: string; wake: () => void }[] = [];
  closed = false;

  /** FetcherOptions.connect: every connection goes to this leader. */
  readonly connect = (): Connection => {
    const c = {
      connect: async () => {},
      close: async () => {
        this.closed = true;
        this.failAll();
      },
      get isClosed() {
        return false;
      },
      send: (api: ApiDefinition<unknown, unknown>, request: unknown) =>
        new Promise((resolve, reject) => {
          this.#inFlight.push({ api: api.name, request, resolve, reject });
          for (const w of this.#waiters.filter((x) => x.api === api.name)) {
            this.#waiters.splice(this.#waiters.indexOf(w), 1);
            w.wake();
          }
        }),
    };
    return c as unknown as Connection;
  };

  /** Waits for the next request of `api` (by its name, e.g. 'Fetch') and returns it, still in flight. */
  async next<Req>(api: ApiDefinition<Req, unknown>): Promise<{ request: Req; answer: (response: unknown) => Promise<void>; fail: (err: Error) => void }> {
    for (;;) {
      const i = this.#inFlight.findIndex((r) => r.api === api.name);
      if (i >= 0) {
        const r = this.#inFlight.splice(i, 1)[0]!;
        this.#taken.add(r);
        return {
          request: r.request as Req,
          answer: async (response) => {
            this.#taken.delete(r);
            r.resolve(response);
            // Let the fetcher act on it before the test looks.
            for (let k = 0; k < 5; k++) await new Promise((done) => setImmediate(done));
          },
          fail: (err) => {
            this.#taken.delete(r);
            r.reject(err);
          },
        };
      }
      await new Promise<void>((wake) => this.#waiters.push({ api: api.name, wake }));
    }
  }

  /** Fails whatever is still in flight (at the end of a test, so the fetcher loop can stop). */
  failAll(): void {
    for (const r of [...this.#inFlight.splice(0), ...this.#taken]) r.reject(new Error('connection closed'));
    this.#taken.clear();
  }
}
