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

export interface ZkRetryOptions {
  /** The current session's signal: aborted when the session is lost or the controller stops. */
  signal: () => AbortSignal;
  log: Logger;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
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
      return (...args: unknown[]) => retryOnConnectionError(() => method.apply(target, args), String(prop), opts);
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
