import { EventEmitter } from 'node:events';
import { backoffMs, createLogger, sleep, withTimeout, TimeoutError, type Logger } from '@gregor/common';
import { ZkClient, type ZkClientOptions } from './zk-client.js';
import { ZkError, ZkErrorCode } from './zk-errors.js';

export interface ZkSessionOptions extends ZkClientOptions {
  /** How often the watchdog reads '/'. Default sessionTimeout/3. */
  watchdogIntervalMs?: number;
  /** A watchdog read slower than this means the connection is lost. Default sessionTimeout*2/3. */
  watchdogTimeoutMs?: number;
}

export type NewSessionHandler = (client: ZkClient) => void | Promise<void>;

/**
 * Owns the ZkClient across session expiries. Events:
 *  - `connected`    connection (re)established within the same session
 *  - `disconnected` connection lost or the watchdog found the server unresponsive: stop acting on ZooKeeper state
 *  - `expired`      the library reported the session expired
 *  - `sessionLost`  no contact for a whole session timeout: the session must be presumed expired
 *  - `newSession`   a fresh client is connected and every onNewSession handler has run (arg: the client)
 *
 * The library never reconnects after expiry and never notices a hung server (defects 4 and 5), so both lead here
 * to: close the old client, connect a new one, run the onNewSession handlers (re-register ephemerals and watches).
 */
export class ZkSession extends EventEmitter {
  #options: ZkSessionOptions;
  #logger: Logger;
  #client: ZkClient | undefined;
  #handlers: NewSessionHandler[] = [];
  #closed = false;
  #renewing: Promise<void> | undefined;
  /** Another renewal was asked for while one ran (e.g. the new session failed again during its handlers). */
  #renewAgain = false;
  #watchdogTimer: NodeJS.Timeout | undefined;
  #lostTimer: NodeJS.Timeout | undefined;
  #disconnected = false;
  /** The watchdog gave up on this client: a later `connected` from the library does not revive it. */
  #watchdogTripped = false;
  #abort = new AbortController();

  constructor(options: ZkSessionOptions) {
    super();
    this.#options = options;
    this.#logger = options.logger ?? createLogger('zk-session');
  }

  /** Connects the first client (handlers registered before start run for it too). */
  async start(): Promise<void> {
    if (this.#client || this.#renewing) throw new Error('ZkSession already started');
    const attempt = this.#connectOnce();
    // While the first handlers run, a lost connection only asks for a renewal afterwards.
    this.#renewing = attempt.catch(() => {});
    try {
      await attempt;
    } catch (error) {
      this.#renewAgain = false;
      throw error;
    } finally {
      this.#renewing = undefined;
    }
    if (this.#client) this.emit('newSession', this.#client);
    if (this.#renewAgain) {
      this.#renewAgain = false;
      this.#renew('lost while starting');
    }
  }

  /** The current client; replaced after a session is lost. */
  get client(): ZkClient {
    if (!this.#client) throw new ZkError(ZkErrorCode.CONNECTION_LOSS, undefined);
    return this.#client;
  }

  /** Whether the session is believed usable right now (connected, watchdog happy, not renewing). */
  get healthy(): boolean {
    return !this.#closed && !this.#disconnected && this.#renewing === undefined && this.#client !== undefined;
  }

  /** Runs after every new session (including the first): re-create ephemerals, re-register watches, re-read state. */
  onNewSession(handler: NewSessionHandler): () => void {
    this.#handlers.push(handler);
    return () => {
      this.#handlers = this.#handlers.filter((h) => h !== handler);
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort();
    this.#stopTimers();
    await this.#renewing?.catch(() => {});
    await this.#client?.close();
    this.#client = undefined;
  }

  get #sessionTimeoutMs(): number {
    return this.#client?.sessionTimeoutMs || this.#options.sessionTimeoutMs || 6000;
  }

  #onDisconnected(client: ZkClient): void {
    if (client !== this.#client || this.#closed) return;
    this.#markDisconnected(false);
  }

  #onConnected(client: ZkClient): void {
    if (client !== this.#client || this.#closed) return;
    // The library got the same session back: cancel the loss timer unless the watchdog already gave up on it.
    if (this.#disconnected && this.#lostTimer && !this.#watchdogTripped) {
      clearTimeout(this.#lostTimer);
      this.#lostTimer = undefined;
      this.#disconnected = false;
      this.emit('connected');
    }
  }

  #onExpired(client: ZkClient): void {
    if (client !== this.#client || this.#closed) return;
    this.emit('expired');
    this.#renew('expired');
  }

  /** Connection lost: tell listeners now, and presume the session dead after a full session timeout. */
  #markDisconnected(byWatchdog: boolean): void {
    if (byWatchdog) this.#watchdogTripped = true;
    if (this.#disconnected) return;
    this.#disconnected = true;
    this.emit('disconnected');
    this.#lostTimer = setTimeout(() => {
      this.#lostTimer = undefined;
      this.emit('sessionLost');
      this.#renew('session lost');
    }, this.#sessionTimeoutMs);
  }

  #scheduleWatchdog(): void {
    if (this.#closed) return;
    const interval = this.#options.watchdogIntervalMs ?? Math.max(100, Math.floor(this.#sessionTimeoutMs / 3));
    this.#watchdogTimer = setTimeout(() => void this.#watchdogTick(), interval);
  }

  async #watchdogTick(): Promise<void> {
    this.#watchdogTimer = undefined;
    const client = this.#client;
    if (!client || client !== this.#client || this.#closed) return;
    const timeoutMs = this.#options.watchdogTimeoutMs ?? Math.floor((this.#sessionTimeoutMs * 2) / 3);
    try {
      await withTimeout(client.exists('/'), timeoutMs, () => new TimeoutError(`watchdog read took over ${timeoutMs} ms`));
    } catch (error) {
      if (client === this.#client && !this.#closed) {
        this.#logger.warn({ err: error }, 'ZooKeeper watchdog: no answer, treating the connection as lost');
        this.#markDisconnected(true);
      }
    }
    if (client === this.#client && !this.#closed) this.#scheduleWatchdog();
  }

  #stopTimers(): void {
    clearTimeout(this.#watchdogTimer);
    clearTimeout(this.#lostTimer);
    this.#watchdogTimer = undefined;
    this.#lostTimer = undefined;
  }

  /** Drops the current client and connects a new session, retrying with backoff until it works or close(). */
  #renew(reason: string): void {
    if (this.#closed) return;
    if (this.#renewing) {
      this.#renewAgain = true;
      return;
    }
    this.#stopTimers();
    const old = this.#client;
    this.#client = undefined;
    this.#disconnected = true;
    this.#watchdogTripped = false;
    this.#logger.warn({ reason, sessionId: old?.sessionId }, 'ZooKeeper session renewal');
    const renewing = (async () => {
      old?.abandon(); // the server already dropped (or will drop) this session
      for (let attempt = 0; !this.#closed; attempt++) {
        try {
          await this.#connectOnce();
          this.#renewing = undefined; // healthy before listeners hear about the new session
          if (this.#client) this.emit('newSession', this.#client);
          return;
        } catch (error) {
          this.#logger.warn({ err: error, attempt }, 'ZooKeeper reconnect failed');
          await sleep(backoffMs(attempt, 200, 5000), this.#abort.signal);
        }
      }
    })();
    this.#renewing = renewing;
    void renewing.finally(() => {
      if (this.#renewing === renewing) this.#renewing = undefined;
      if (this.#renewAgain && !this.#renewing) {
        this.#renewAgain = false;
        this.#renew('lost again while renewing');
      }
    });
  }

  /** Connects a client and runs every handler; on a handler failure drops the client and throws. */
  async #connectOnce(): Promise<void> {
    const client = await ZkClient.connect({ ...this.#options, signal: this.#abort.signal });
    if (this.#closed) {
      await client.close();
      return;
    }
    this.#client = client;
    this.#disconnected = false;
    client.on('disconnected', () => this.#onDisconnected(client));
    client.on('connected', () => this.#onConnected(client));
    client.on('expired', () => this.#onExpired(client));
    this.#scheduleWatchdog();
    for (const handler of this.#handlers) {
      try {
        await handler(client);
      } catch (error) {
        this.#logger.error({ err: error }, 'onNewSession handler failed; trying a new session');
        if (this.#client === client) {
          this.#stopTimers();
          this.#client = undefined;
        }
        client.abandon();
        throw error;
      }
    }
  }
}
