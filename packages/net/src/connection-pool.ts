import type { Logger } from '@gregor/common';
import { Connection } from './connection.js';
import { ClientClosedError } from './errors.js';
import type { ClientSecurity } from './security/client-security.js';

export interface ConnectionPoolOptions {
  clientId?: string;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** TLS/SASL of every connection in the pool. */
  security?: ClientSecurity;
  logger?: Logger;
}

export interface PoolAddress {
  host: string;
  port: number;
}

/**
 * Connections to brokers, one per broker id (or per address for brokers whose id is not known
 * yet, e.g. bootstrap servers), opened on first use and reused. A connection that failed is
 * replaced on the next use; one whose broker moved to another address is closed and replaced.
 * The owner closes the pool, which closes every connection in it.
 */
export class ConnectionPool {
  readonly #options: ConnectionPoolOptions;
  readonly #byBroker = new Map<number, Connection>();
  readonly #byAddress = new Map<string, Connection>();
  #closed = false;

  constructor(options: ConnectionPoolOptions = {}) {
    this.#options = options;
  }

  get size(): number {
    return this.#byBroker.size + this.#byAddress.size;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** The pooled connection to broker `brokerId` at `address` (not connected yet: `send` connects). */
  get(brokerId: number, address: PoolAddress): Connection {
    this.#assertOpen();
    const existing = this.#byBroker.get(brokerId);
    if (existing && !existing.isClosed && existing.host === address.host && existing.port === address.port) return existing;
    if (existing) void existing.close();
    const connection = this.#open(address);
    this.#byBroker.set(brokerId, connection);
    // A failed connection leaves the pool at once, so `size` counts only usable ones.
    void connection.closed.then(() => {
      if (this.#byBroker.get(brokerId) === connection) this.#byBroker.delete(brokerId);
    });
    return connection;
  }

  /** The pooled connection to an address whose broker id is unknown (bootstrap servers). */
  getByAddress(address: PoolAddress): Connection {
    this.#assertOpen();
    const k = `${address.host}:${address.port}`;
    const existing = this.#byAddress.get(k);
    if (existing && !existing.isClosed) return existing;
    const connection = this.#open(address);
    this.#byAddress.set(k, connection);
    return connection;
  }

  /** `get` then connect: resolves once the connection is ready. */
  async connect(brokerId: number, address: PoolAddress): Promise<Connection> {
    const connection = this.get(brokerId, address);
    await connection.connect();
    return connection;
  }

  async connectByAddress(address: PoolAddress): Promise<Connection> {
    const connection = this.getByAddress(address);
    await connection.connect();
    return connection;
  }

  /** Closes and forgets the connections of brokers `keep` rejects (brokers gone or moved). */
  retain(keep: (brokerId: number, connection: Connection) => boolean): void {
    for (const [brokerId, connection] of this.#byBroker) {
      if (keep(brokerId, connection)) continue;
      this.#byBroker.delete(brokerId);
      void connection.close();
    }
  }

  /** Closes and forgets the connection to one broker (it left the cluster). */
  async remove(brokerId: number): Promise<void> {
    const connection = this.#byBroker.get(brokerId);
    this.#byBroker.delete(brokerId);
    await connection?.close();
  }

  /**
   * A connection with the pool's settings that the pool does not hold: for a fetch loop, whose long
   * polls must not hold up the requests sharing a pooled connection. The caller closes it.
   */
  openUnpooled(address: PoolAddress): Connection {
    this.#assertOpen();
    return this.#open(address);
  }

  #open(address: PoolAddress): Connection {
    const o = this.#options;
    return new Connection({
      host: address.host,
      port: address.port,
      ...(o.clientId !== undefined ? { clientId: o.clientId } : {}),
      ...(o.connectTimeoutMs !== undefined ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
      ...(o.security ? { security: o.security } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
    });
  }

  #assertOpen(): void {
    if (this.#closed) throw new ClientClosedError();
  }

  /** Closes every connection; requests in flight fail with a NetworkError. Safe to call more than once. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#byBroker.values(), ...this.#byAddress.values()];
    this.#byBroker.clear();
    this.#byAddress.clear();
    await Promise.all(all.map((c) => c.close().catch(() => {})));
  }
}
