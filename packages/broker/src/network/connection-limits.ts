import type { Logger } from '@gregor/common';
import type { RequestChannel } from './request-channel.js';

export interface ConnectionLimits {
  /** max.connections: client-listener connections together. */
  maxConnections: number;
  /** max.connections.per.ip, and its overrides. */
  maxConnectionsPerIp: number;
  maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  /** connections.max.idle.ms: no traffic either way for this long closes the connection. */
  connectionsMaxIdleMs: number;
  /** queued.max.requests: requests being handled across all connections. */
  queuedMaxRequests: number;
  /** A connection's unsent response bytes above this mute it (stop reading) until the client reads. */
  maxUnsentBytes: number;
}

/** Which limit was hit: the label of the limit metric. */
export type LimitName = 'max.connections' | 'max.connections.per.ip' | 'connections.max.idle.ms' | 'socket.request.max.bytes' | 'queued.max.requests' | 'connection.max.unsent.bytes';

export const NO_LIMITS: ConnectionLimits = {
  maxConnections: Number.MAX_SAFE_INTEGER,
  maxConnectionsPerIp: Number.MAX_SAFE_INTEGER,
  maxConnectionsPerIpOverrides: new Map(),
  connectionsMaxIdleMs: 0,
  queuedMaxRequests: Number.MAX_SAFE_INTEGER,
  maxUnsentBytes: Number.MAX_SAFE_INTEGER,
};

/** What the connections share: the limits, the counters of limit hits, the broker-wide request queue. */
export class ServerState {
  readonly limits: ConnectionLimits;
  readonly logger: Logger;
  /** Times each limit was hit (metrics). */
  readonly limitHits = new Map<LimitName, number>();
  /** Requests being handled now, all connections together (queued.max.requests). */
  queued = 0;
  /** Connections waiting for the request queue to have room. */
  readonly waiting = new Set<RequestChannel>();

  constructor(limits: ConnectionLimits, logger: Logger) {
    this.limits = limits;
    this.logger = logger;
  }

  hit(limit: LimitName, fields: Record<string, unknown>, message: string, level: 'info' | 'warn' | 'debug' = 'info'): void {
    this.limitHits.set(limit, (this.limitHits.get(limit) ?? 0) + 1);
    this.logger[level]({ limit, ...fields }, message);
  }

  /** A request finished: connections waiting for room in the queue may go on. */
  release(): void {
    this.queued--;
    if (this.waiting.size === 0 || this.queued >= this.limits.queuedMaxRequests) return;
    for (const c of [...this.waiting]) {
      if (this.queued >= this.limits.queuedMaxRequests) break;
      this.waiting.delete(c);
      c.pump();
    }
  }
}
