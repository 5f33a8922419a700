import { backoffMs, sleep, type Logger } from '@gregor/common';
import { Connection, type ClientSecurity } from '@gregor/net';
import type { ApiDefinition } from '@gregor/protocol';
import type { ControllerBrokerInfo } from './controller-context.js';

interface QueuedRequest {
  api: ApiDefinition<unknown, unknown>;
  request: unknown;
  onResponse?: (response: unknown) => void;
}

/**
 * One send queue per live broker (Kafka's ControllerChannelManager / RequestSendThread): requests to
 * a broker go out one at a time, in order, retried with backoff until they are answered or the
 * broker is removed. The controller never waits on a broker inside its event loop.
 */
class BrokerSendQueue {
  readonly #queue: QueuedRequest[] = [];
  readonly #abort = new AbortController();
  #wake: (() => void) | null = null;
  #connection: Connection | null = null;
  readonly #loop: Promise<void>;

  constructor(
    readonly broker: ControllerBrokerInfo,
    readonly listenerName: string,
    readonly controllerId: number,
    readonly requestTimeoutMs: number,
    readonly log: Logger,
    readonly security: ClientSecurity | undefined,
  ) {
    this.#loop = this.#run();
  }

  enqueue(r: QueuedRequest): void {
    this.#queue.push(r);
    this.#wake?.();
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      const next = this.#queue[0];
      if (!next) {
        await new Promise<void>((resolve) => {
          const done = () => {
            signal.removeEventListener('abort', done);
            resolve();
          };
          this.#wake = done;
          signal.addEventListener('abort', done, { once: true });
        });
        this.#wake = null;
        continue;
      }
      let attempt = 0;
      while (!signal.aborted) {
        try {
          const conn = await this.#connect();
          const response = await conn.send(next.api, next.request);
          this.#queue.shift();
          try {
            next.onResponse?.(response);
          } catch (err) {
            this.log.error({ err, broker: this.broker.id }, 'controller response callback failed');
          }
          break;
        } catch (err) {
          this.#dropConnection();
          if (signal.aborted) break;
          this.log.warn({ broker: this.broker.id, api: next.api.name, err: (err as Error).message, attempt }, 'controller request failed, retrying');
          await sleep(backoffMs(attempt++, 100, 2000), signal);
        }
      }
    }
    this.#dropConnection();
  }

  async #connect(): Promise<Connection> {
    if (this.#connection && !this.#connection.isClosed) return this.#connection;
    const endpoint = this.broker.endpoints.find((e) => e.listenerName === this.listenerName) ?? this.broker.endpoints[0];
    if (!endpoint) throw new Error(`broker ${this.broker.id} has no endpoint`);
    const conn = new Connection({
      host: endpoint.host,
      port: endpoint.port,
      clientId: `controller-${this.controllerId}`,
      requestTimeoutMs: this.requestTimeoutMs,
      connectTimeoutMs: Math.min(this.requestTimeoutMs, 10_000),
      ...(this.security ? { security: this.security } : {}),
    });
    this.#connection = conn;
    await conn.connect();
    return conn;
  }

  #dropConnection(): void {
    const c = this.#connection;
    this.#connection = null;
    if (c) void c.close().catch(() => {});
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    this.#wake?.();
    // A request in flight to a dead broker (a killed container never answers, not even with a reset)
    // would hold the loop until controller.socket.timeout.ms: close the connection so it fails now.
    this.#dropConnection();
    await this.#loop;
  }
}

export interface ControllerChannelOptions {
  controllerId: number;
  listenerName: string;
  requestTimeoutMs: number;
  /** TLS/SASL of the inter-broker listener the controller connects to. */
  security?: ClientSecurity;
  logger: Logger;
}

/** How the controller reaches brokers (ControllerChannelManager; tests record requests instead). */
export interface ControllerChannel {
  addBroker(broker: ControllerBrokerInfo): void;
  removeBroker(id: number): Promise<void>;
  send<Req, Res>(brokerId: number, api: ApiDefinition<Req, Res>, request: Req, onResponse?: (response: Res) => void): void;
  shutdown(): Promise<void>;
}

export class ControllerChannelManager implements ControllerChannel {
  readonly #queues = new Map<number, BrokerSendQueue>();
  readonly #controllerId: number;
  readonly #listenerName: string;
  readonly #requestTimeoutMs: number;
  readonly #security: ClientSecurity | undefined;
  readonly #log: Logger;

  constructor(opts: ControllerChannelOptions) {
    this.#controllerId = opts.controllerId;
    this.#listenerName = opts.listenerName;
    this.#requestTimeoutMs = opts.requestTimeoutMs;
    this.#security = opts.security;
    this.#log = opts.logger;
  }

  addBroker(broker: ControllerBrokerInfo): void {
    if (this.#queues.has(broker.id)) return;
    this.#queues.set(broker.id, new BrokerSendQueue(broker, this.#listenerName, this.#controllerId, this.#requestTimeoutMs, this.#log, this.#security));
  }

  async removeBroker(id: number): Promise<void> {
    const q = this.#queues.get(id);
    this.#queues.delete(id);
    await q?.stop();
  }

  send<Req, Res>(brokerId: number, api: ApiDefinition<Req, Res>, request: Req, onResponse?: (response: Res) => void): void {
    const q = this.#queues.get(brokerId);
    if (!q) {
      this.#log.warn({ broker: brokerId, api: api.name }, 'not sending to a broker that is not live');
      return;
    }
    q.enqueue({ api: api as ApiDefinition<unknown, unknown>, request, onResponse: onResponse as ((r: unknown) => void) | undefined });
  }

  async shutdown(): Promise<void> {
    const qs = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.all(qs.map((q) => q.stop()));
  }
}
