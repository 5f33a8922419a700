import { EventEmitter } from 'node:events';
import zookeeper from 'node-zookeeper-client';
import type { Client, Event, Stat, Transaction } from 'node-zookeeper-client';
import { createLogger, sleep, TimeoutError, withTimeout, type Logger } from '@gregor/common';
import { ZkError, ZkErrorCode } from './zk-errors.js';
import {
  toBuffer,
  toZkStat,
  type ZkCreateMode,
  type ZkData,
  type ZkOp,
  type ZkOpResult,
  type ZkStat,
  type ZkWatchEvent,
  type ZkWatchEventType,
  type ZkWatcher,
} from './zk-types.js';

export interface ZkClientOptions {
  /** `host:port[,host:port...]`, optionally followed by a chroot. */
  connectString: string;
  /** Requested session timeout; ZooKeeper clamps it to 2–20 ticks. Default 6000. */
  sessionTimeoutMs?: number;
  /** Give up connecting after this long. Default 30000. */
  connectTimeoutMs?: number;
  /** One connection attempt may hang in CONNECTING: after this long the client is recreated. Default 5000. */
  connectAttemptMs?: number;
  /** Every operation fails with TimeoutError after this long. Default 10000. */
  operationTimeoutMs?: number;
  logger?: Logger;
  /** Aborts connect() (it then rejects). */
  signal?: AbortSignal;
}

const CREATE_MODES: Record<ZkCreateMode, number> = {
  persistent: zookeeper.CreateMode.PERSISTENT,
  ephemeral: zookeeper.CreateMode.EPHEMERAL,
  persistent_sequential: zookeeper.CreateMode.PERSISTENT_SEQUENTIAL,
  ephemeral_sequential: zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL,
};

const EVENT_TYPES = new Map<number, ZkWatchEventType>([
  [zookeeper.Event.NODE_CREATED, 'created'],
  [zookeeper.Event.NODE_DELETED, 'deleted'],
  [zookeeper.Event.NODE_DATA_CHANGED, 'dataChanged'],
  [zookeeper.Event.NODE_CHILDREN_CHANGED, 'childrenChanged'],
]);

/** The library's internals we reach into: its op list (defect 1) and its socket (to drop a hung connection). */
interface TransactionInternals {
  ops: Array<{ version?: number }>;
}
interface ConnectionManagerInternals {
  socket?: { destroy(): void };
  connectTimeoutHandler?: NodeJS.Timeout;
  connect(): void;
}

function toZkError(error: unknown, path: string): Error {
  if (error instanceof zookeeper.Exception) return new ZkError(error.getCode(), path, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/** Stops a library client for good without telling the server (a hung server, a crash in tests), even mid-reconnect. */
function abandon(raw: Client): void {
  const manager = (raw as unknown as { connectionManager: ConnectionManagerInternals }).connectionManager;
  manager.connect = () => {}; // the socket's close handler would reconnect
  clearTimeout(manager.connectTimeoutHandler);
  raw.removeAllListeners();
  raw.on('state', () => {});
  manager.socket?.destroy();
}

/**
 * The one wrapper around node-zookeeper-client: promises with a timeout on every operation, typed ZkErrors,
 * safe watchers, a fixed multi (version 0), recursive delete. Emits `connected`, `disconnected`, `expired`.
 */
export class ZkClient extends EventEmitter {
  readonly sessionTimeoutMs: number;
  readonly operationTimeoutMs: number;
  #raw: Client;
  #logger: Logger;
  #closed = false;

  private constructor(raw: Client, options: ZkClientOptions, logger: Logger) {
    super();
    this.#raw = raw;
    this.#logger = logger;
    this.sessionTimeoutMs = raw.getSessionTimeout();
    this.operationTimeoutMs = options.operationTimeoutMs ?? 10_000;
    for (const state of ['connected', 'disconnected', 'expired', 'connectedReadOnly'] as const) {
      raw.on(state, () => {
        if (!this.#closed) this.emit(state);
      });
    }
  }

  /** Connects; an attempt stuck in CONNECTING is abandoned and a fresh client made, until connectTimeoutMs. */
  static async connect(options: ZkClientOptions): Promise<ZkClient> {
    const logger = options.logger ?? createLogger('zk-client');
    const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    const attemptMs = options.connectAttemptMs ?? 5000;
    const deadline = Date.now() + connectTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      const raw = zookeeper.createClient(options.connectString, {
        sessionTimeout: options.sessionTimeoutMs ?? 6000,
        spinDelay: 200,
        retries: 0,
      });
      const signal = options.signal;
      const connected = await new Promise<boolean>((resolve) => {
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(ok);
        };
        const onAbort = (): void => done(false);
        const timer = setTimeout(onAbort, Math.max(1, Math.min(attemptMs, deadline - Date.now())));
        signal?.addEventListener('abort', onAbort, { once: true });
        raw.once('connected', () => done(true));
        if (signal?.aborted) onAbort();
        else raw.connect();
      });
      if (connected && !signal?.aborted) return new ZkClient(raw, options, logger);
      abandon(raw);
      if (signal?.aborted) throw new Error('ZooKeeper connect aborted');
      if (Date.now() >= deadline) {
        throw new TimeoutError(`could not connect to ZooKeeper at ${options.connectString} within ${connectTimeoutMs} ms`);
      }
      logger.warn({ attempt, connectString: options.connectString }, 'ZooKeeper connect attempt timed out, retrying with a new client');
      await sleep(Math.min(200 * (attempt + 1), 1000));
    }
  }

  /** Session id as 16 hex digits. */
  get sessionId(): string {
    return this.#raw.getSessionId().toString('hex');
  }

  /** Session id as a number, comparable with ZkStat.ephemeralOwner. */
  get sessionIdValue(): bigint {
    return this.#raw.getSessionId().readBigInt64BE(0);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** True while the library reports a live connection. */
  get connected(): boolean {
    const state = this.#raw.getState();
    return state === zookeeper.State.SYNC_CONNECTED || state === zookeeper.State.CONNECTED_READ_ONLY;
  }

  /** Creates a node; returns its path (with the sequence suffix for sequential modes). */
  create(path: string, data: ZkData = null, mode: ZkCreateMode = 'persistent'): Promise<string> {
    return this.#call('create', path, (cb) => {
      const buffer = toBuffer(data);
      if (buffer === undefined) this.#raw.create(path, CREATE_MODES[mode], cb);
      else this.#raw.create(path, buffer, CREATE_MODES[mode], cb);
    });
  }

  /** Creates the node unless it exists; true if this call created it. */
  async createIfAbsent(path: string, data: ZkData = null, mode: ZkCreateMode = 'persistent'): Promise<boolean> {
    try {
      await this.create(path, data, mode);
      return true;
    } catch (error) {
      if (error instanceof ZkError && error.zkCode === ZkErrorCode.NODE_EXISTS) return false;
      throw error;
    }
  }

  /** Creates every missing persistent node along the path. */
  async mkdirp(path: string): Promise<void> {
    const parts = path.split('/').filter((p) => p.length > 0);
    let current = '';
    for (const part of parts) {
      current += `/${part}`;
      await this.createIfAbsent(current);
    }
  }

  getData(path: string, watcher?: ZkWatcher): Promise<{ data: Buffer; stat: ZkStat }> {
    return this.#call('getData', path, (cb: (error: unknown, value?: { data: Buffer; stat: ZkStat }) => void) => {
      const done = (error: unknown, data: Buffer, stat: Stat): void =>
        error ? cb(error) : cb(null, { data: data ?? Buffer.alloc(0), stat: toZkStat(stat) });
      if (watcher) this.#raw.getData(path, this.#wrap(watcher), done);
      else this.#raw.getData(path, done);
    });
  }

  /** getData, or null when the node does not exist (a watcher is then not set; use exists to watch creation). */
  async getDataOrNull(path: string, watcher?: ZkWatcher): Promise<{ data: Buffer; stat: ZkStat } | null> {
    try {
      return await this.getData(path, watcher);
    } catch (error) {
      if (error instanceof ZkError && error.zkCode === ZkErrorCode.NO_NODE) return null;
      throw error;
    }
  }

  /** The node's stat or null; a watcher fires on creation, deletion or data change. */
  exists(path: string, watcher?: ZkWatcher): Promise<ZkStat | null> {
    return this.#call('exists', path, (cb: (error: unknown, value?: ZkStat | null) => void) => {
      const done = (error: unknown, stat: Stat | null): void => (error ? cb(error) : cb(null, stat ? toZkStat(stat) : null));
      if (watcher) this.#raw.exists(path, this.#wrap(watcher), done);
      else this.#raw.exists(path, done);
    });
  }

  /** Sets data if the node's version equals `version` (-1: any). */
  setData(path: string, data: ZkData, version = -1): Promise<ZkStat> {
    return this.#call('setData', path, (cb: (error: unknown, value?: ZkStat) => void) => {
      this.#raw.setData(path, toBuffer(data) ?? null, version, (error, stat) => (error ? cb(error) : cb(null, toZkStat(stat))));
    });
  }

  /** Deletes the node if its version equals `version` (-1: any). */
  delete(path: string, version = -1): Promise<void> {
    return this.#call('delete', path, (cb: (error: unknown) => void) => this.#raw.remove(path, version, (error) => cb(error)));
  }

  getChildren(path: string, watcher?: ZkWatcher): Promise<string[]> {
    return this.#call('getChildren', path, (cb: (error: unknown, value?: string[]) => void) => {
      const done = (error: unknown, children: string[]): void => (error ? cb(error) : cb(null, children));
      if (watcher) this.#raw.getChildren(path, this.#wrap(watcher), done);
      else this.#raw.getChildren(path, done);
    });
  }

  /** Deletes a node and everything below it, any depth; a node that is already gone is fine. */
  async deleteRecursive(path: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let children: string[];
      try {
        children = await this.getChildren(path);
      } catch (error) {
        if (error instanceof ZkError && error.zkCode === ZkErrorCode.NO_NODE) return;
        throw error;
      }
      const base = path === '/' ? '' : path;
      await Promise.all(children.map((child) => this.deleteRecursive(`${base}/${child}`)));
      if (path === '/') return; // the root itself cannot be deleted
      try {
        await this.delete(path);
        return;
      } catch (error) {
        if (error instanceof ZkError && error.zkCode === ZkErrorCode.NO_NODE) return;
        // Someone added a child meanwhile: go around again, a few times.
        if (error instanceof ZkError && error.zkCode === ZkErrorCode.NOT_EMPTY && attempt < 5) continue;
        throw error;
      }
    }
  }

  /**
   * Runs ops atomically. On failure rejects with the ZkError of the failing op (`opIndex` set).
   * Versions are passed exactly: the library turns version 0 into -1 ("any") in transactions, which would
   * make a compare-and-set on a fresh node pass silently, so we overwrite them after it builds each op.
   */
  multi(ops: ZkOp[]): Promise<ZkOpResult[]> {
    return this.#call('multi', ops[0]?.path ?? '/', (cb: (error: unknown, value?: ZkOpResult[]) => void) => {
      const tx: Transaction = this.#raw.transaction();
      const built = (tx as unknown as TransactionInternals).ops;
      for (const op of ops) {
        switch (op.type) {
          case 'create': {
            const buffer = toBuffer(op.data);
            if (buffer === undefined) tx.create(op.path, CREATE_MODES[op.mode ?? 'persistent']);
            else tx.create(op.path, buffer, CREATE_MODES[op.mode ?? 'persistent']);
            break;
          }
          case 'check':
            tx.check(op.path, op.version);
            built[built.length - 1]!.version = op.version;
            break;
          case 'setData':
            tx.setData(op.path, toBuffer(op.data) ?? null, op.version);
            built[built.length - 1]!.version = op.version;
            break;
          case 'delete':
            tx.remove(op.path, op.version);
            built[built.length - 1]!.version = op.version;
            break;
        }
      }
      tx.commit((error, results) => {
        if (error) {
          const failed = Array.isArray(results)
            ? results.findIndex((r: { err?: number }) => r.err !== undefined && r.err !== ZkErrorCode.OK && r.err !== ZkErrorCode.RUNTIME_INCONSISTENCY)
            : -1;
          if (error instanceof zookeeper.Exception && failed >= 0) {
            cb(new ZkError(error.getCode(), ops[failed]!.path, { opIndex: failed, cause: error }));
          } else cb(error);
          return;
        }
        cb(null, ops.map((op, i) => toOpResult(op, (results as unknown as Array<{ path?: string; stat?: Stat }>)[i])));
      });
    });
  }

  /** Closes the session (its ephemerals vanish at once); a hung connection is dropped after `timeoutMs`. */
  async close(timeoutMs = 2000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const raw = this.#raw;
    if (this.connected) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        raw.once('disconnected', () => {
          clearTimeout(timer);
          resolve();
        });
        raw.close();
      });
    }
    abandon(raw);
  }

  /** Drops the connection at once without telling the server (a hung server, or tests). */
  abandon(): void {
    this.#closed = true;
    abandon(this.#raw);
  }

  #call<T>(what: string, path: string, run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
    if (this.#closed) return Promise.reject(new ZkError(ZkErrorCode.CONNECTION_LOSS, path));
    const answer = new Promise<T>((resolve, reject) => {
      run((error, value) => (error ? reject(toZkError(error, path)) : resolve(value as T)));
    });
    return withTimeout(answer, this.operationTimeoutMs, () => new TimeoutError(`ZooKeeper ${what} ${path}: no answer within ${this.operationTimeoutMs} ms`));
  }

  /** A watcher that throws or rejects must never crash the process (defect 6): log it instead. */
  #wrap(watcher: ZkWatcher): (event: Event) => void {
    return (event) => {
      if (this.#closed) return;
      const type = EVENT_TYPES.get(event.getType());
      if (!type) return;
      const watchEvent: ZkWatchEvent = { type, path: event.getPath() };
      try {
        const result = watcher(watchEvent);
        if (result instanceof Promise) result.catch((error: unknown) => this.#logger.error({ err: error, event: watchEvent }, 'ZooKeeper watcher failed'));
      } catch (error) {
        this.#logger.error({ err: error, event: watchEvent }, 'ZooKeeper watcher failed');
      }
    };
  }
}

function toOpResult(op: ZkOp, result: { path?: string; stat?: Stat } | undefined): ZkOpResult {
  switch (op.type) {
    case 'create':
      return { type: 'create', path: result?.path ?? op.path };
    case 'setData':
      return { type: 'setData', stat: toZkStat(result!.stat!) };
    case 'check':
      return { type: 'check' };
    case 'delete':
      return { type: 'delete' };
  }
}
