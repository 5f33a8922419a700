import { GregorError, backoffMs, sleep } from '@gregor/common';

export interface RetryOptions {
  /** Retries after the first attempt (Kafka's `retries`). */
  retries: number;
  /** First backoff ceiling (Kafka's `retry.backoff.ms`); doubles per attempt, with jitter. */
  retryBackoffMs: number;
  /** Cap on one backoff. */
  retryBackoffMaxMs: number;
  /** Give up once this much time has passed since the first attempt (Kafka's `delivery.timeout.ms` for producers). */
  totalTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called before each backoff, e.g. to mark metadata stale. */
  onRetry?: (error: GregorError, attempt: number) => void | Promise<void>;
  random?: () => number;
  now?: () => number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 5, retryBackoffMs: 100, retryBackoffMaxMs: 1000 };

/** The operation was cancelled through its AbortSignal. */
export class AbortError extends Error {
  constructor(message = 'operation aborted', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AbortError';
  }
}

export function isRetriableError(error: unknown): error is GregorError {
  return error instanceof GregorError && error.retriable;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError('operation aborted', { cause: signal.reason });
}

/**
 * Runs `operation` until it succeeds, retrying only retriable GregorErrors with exponential
 * backoff and jitter. Anything else (non-retriable codes, programming errors) is thrown at once;
 * when the retries or the time budget run out, the last error is thrown.
 */
export async function retry<T>(operation: (attempt: number) => Promise<T>, options: Partial<RetryOptions> = {}): Promise<T> {
  const o = { ...DEFAULT_RETRY, ...options };
  const now = o.now ?? Date.now;
  const start = now();
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(o.signal);
    try {
      return await operation(attempt);
    } catch (error) {
      if (!isRetriableError(error) || attempt >= o.retries) throw error;
      const wait = backoffMs(attempt, o.retryBackoffMs, o.retryBackoffMaxMs, o.random);
      if (o.totalTimeoutMs !== undefined && now() + wait - start >= o.totalTimeoutMs) throw error;
      await o.onRetry?.(error, attempt);
      await sleep(wait, o.signal);
    }
  }
}
