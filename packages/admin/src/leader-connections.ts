import { Connection, type ClientSecurity } from '@gregor/client';
import type { Logger } from '@gregor/common';

export interface LeaderConnectionsOptions {
  clientId?: string;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** TLS/SASL of the inter-broker listener these connections use. */
  security?: ClientSecurity;
  logger?: Logger;
}

/**
 * One Kafka connection per other broker, opened on first use, for the few requests the admin API
 * sends to partition leaders. A connection that failed is replaced on the next use; one whose
 * broker moved to another address is closed and replaced.
 */
export class LeaderConnections {
  readonly #options: LeaderConnectionsOptions;
  readonly #byBroker = new Map<number, Connection>();
  #closed = false;

  constructor(options: LeaderConnectionsOptions = {}) {
    this.#options = options;
  }

  get size(): number {
    return this.#byBroker.size;
  }

  get(brokerId: number, host: string, port: number): Connection {
    if (this.#closed) throw new Error('the admin server is closed');
    const existing = this.#byBroker.get(brokerId);
    if (existing && !existing.isClosed && existing.host === host && existing.port === port) return existing;
    if (existing) void existing.close();
    const conn = new Connection({
      host,
      port,
      clientId: this.#options.clientId ?? 'gregor-admin',
      connectTimeoutMs: this.#options.connectTimeoutMs ?? 5_000,
      requestTimeoutMs: this.#options.requestTimeoutMs ?? 5_000,
      ...(this.#options.security ? { security: this.#options.security } : {}),
      ...(this.#options.logger ? { logger: this.#options.logger } : {}),
    });
    this.#byBroker.set(brokerId, conn);
    return conn;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#byBroker.values()];
    this.#byBroker.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}
