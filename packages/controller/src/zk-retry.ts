import { backoffMs, sleep, type Logger } from '@gregor/common';
import { isZkConnectionError } from '@gregor/zookeeper';
import type { ControllerZk } from './controller-zk.js';

/**
 * The ZooKeeper session the controller acted in is gone (or the controller is stopping): the event in
 * progress gives up. The new session re-elects and reloads everything, so nothing is lost by stopping.
 */
export class ControllerSessionLostError extends Error {
  constructor(operation: string, options?: { cause?: unknown }) {
    super(`ZooKeeper ${operation}: the session was lost while retrying`, options);
    this.name = 'ControllerSessionLostError';
  }
}

/**
 * Where the controller's time goes: ZooKeeper calls per method (count, summed latency including retries; calls
 * that are pipelined overlap, so the sum can exceed the event's wall time). The controller takes the figures
 * after each event.
 */
export class ZkCallTimer {
  #calls = new Map<string, { calls: number; ms: number }>();

  record(method: string, ms: number): void {
    const c = this.#calls.get(method) ?? { calls: 0, ms: 0 };
    c.calls++;
    c.ms += ms;
    this.#calls.set(method, c);
  }

  /** The figures since the last take, and a fresh start. */
  take(): { totalMs: number; calls: number; byMethod: Record<string, { calls: number; ms: number }> } {
    const byMethod: Record<string, { calls: number; ms: number }> = {};
    let totalMs = 0;
    let calls = 0;
    for (const [m, c] of this.#calls) {
      byMethod[m] = { calls: c.calls, ms: Math.round(c.ms) };
      totalMs += c.ms;
      calls += c.calls;
    }
    this.#calls.clear();
    return { totalMs: Math.round(totalMs), calls, byMethod };
  }
}

export interface ZkRetryOptions {
  /** The current session's signal: aborted when the session is lost or the controller stops. */
  signal: () => AbortSignal;
  log: Logger;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  timer?: ZkCallTimer;
}

/**
 * Every call retried on a connection error (CONNECTION_LOSS, OPERATION_TIMEOUT, no answer in time) until it
 * gets an answer or the session is lost, as Kafka's KafkaZkClient.retryRequestsUntilConnected: an event
 * handler never drops its event half done because the connection blinked. A retried read sets its watch again.
 * Writes may have been applied before the connection failed; callers resolve that (a conditional write then
 * sees BADVERSION or NODEEXISTS and compares with what is stored).
 */
export function retryingControllerZk(zk: ControllerZk, opts: ZkRetryOptions): ControllerZk {
  return new Proxy(zk, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      const name = String(prop);
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await retryOnConnectionError(() => method.apply(target, args), name, opts);
        } finally {
          opts.timer?.record(name, performance.now() - started);
        }
      };
    },
  });
}

async function retryOnConnectionError<T>(op: () => Promise<T>, name: string, opts: ZkRetryOptions): Promise<T> {
  const signal = opts.signal();
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw new ControllerSessionLostError(name);
    try {
      return await op();
    } catch (err) {
      if (!isZkConnectionError(err)) throw err;
      if (signal.aborted) throw new ControllerSessionLostError(name, { cause: err });
      if (attempt === 0 || attempt % 10 === 0) opts.log.warn({ operation: name, attempt, err: (err as Error).message }, 'ZooKeeper connection error: retrying until the session is lost');
      await sleep(backoffMs(attempt, opts.baseBackoffMs ?? 100, opts.maxBackoffMs ?? 1000), signal);
    }
  }
}
