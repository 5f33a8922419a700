import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '@gregor/common';
import { ApiKey, FrameReader, FrameSizeError } from '@gregor/protocol';
import type { SecurityProtocol } from '@gregor/net';
import { ANONYMOUS_PRINCIPAL, sslPrincipal } from '../security/principal.js';
import type { AuthStep } from '../security/sasl-server-authenticator.js';

/** Reads a connection's frames until the client is authenticated (one SaslServerAuthenticator per connection). */
export interface ConnectionAuthenticator {
  handle(frame: Buffer): Promise<AuthStep>;
}

export interface ListenerSpec {
  listenerName: string;
  host: string;
  port: number;
  /** Default PLAINTEXT. */
  securityProtocol?: SecurityProtocol;
  /** Server TLS options of SSL and SASL_SSL listeners. */
  tls?: tls.TlsOptions;
  /** SASL_* listeners: a new authenticator for each connection. */
  authenticator?: (conn: ConnectionInfo) => ConnectionAuthenticator;
}

export interface ConnectionInfo {
  readonly id: number;
  readonly listenerName: string;
  /** `ip:port` of the client. */
  readonly remoteAddress: string;
  /** The client's IP address alone (ACL hosts match it). */
  readonly clientHost: string;
  readonly securityProtocol: SecurityProtocol;
  /** `User:ANONYMOUS` on PLAINTEXT, `User:<subject DN>` with a client certificate, `User:<name>` after SASL. */
  principal: string;
}

/**
 * Handles one request frame (without its size prefix). Returns the response frame chunks
 * (size prefix included), or null when the request has no response (acks=0 produce).
 * Throwing closes the connection: that is what Kafka does with a request it cannot parse.
 */
export type FrameHandler = (frame: Buffer, conn: ConnectionInfo) => Promise<Buffer[] | null> | Buffer[] | null;

export interface SocketServerOptions {
  listeners: ListenerSpec[];
  maxRequestBytes: number;
  handler: FrameHandler;
  logger: Logger;
  /** Pause reading from a connection with this many responses outstanding (back-pressure). */
  maxInFlightPerConnection?: number;
  /** connection.failed.authentication.delay.ms: a failed authentication is answered, then the connection closed this much later. Default 100. */
  failedAuthenticationDelayMs?: number;
  /** Kafka's connection limits and gregor's unsent-bytes bound; every one defaults to no limit. */
  limits?: Partial<ConnectionLimits>;
  /** Not counted against max.connections (Kafka keeps the inter-broker listener reachable). */
  interBrokerListener?: string;
  /**
   * Each response chunk once the socket has flushed it (never when the write failed: the memory may still be in
   * use): pooled read buffers go back to their pool here, never earlier.
   */
  onWritten?: (chunk: Buffer) => void;
  /**
   * Memory for Produce requests that span socket reads (a ~1 MB request arrives as many 64 KB reads): a request's
   * buffer goes back once its handler has answered, so a busy producer connection reuses a few buffers instead of
   * allocating (and page-faulting) one per request. Only Produce: its handler keeps nothing of the request once it
   * answered, while others (JoinGroup, SyncGroup) keep byte fields of theirs.
   */
  requestPool?: { acquire(size: number): Buffer; release(frame: Buffer): void };
}

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

const NO_LIMITS: ConnectionLimits = {
  maxConnections: Number.MAX_SAFE_INTEGER,
  maxConnectionsPerIp: Number.MAX_SAFE_INTEGER,
  maxConnectionsPerIpOverrides: new Map(),
  connectionsMaxIdleMs: 0,
  queuedMaxRequests: Number.MAX_SAFE_INTEGER,
  maxUnsentBytes: Number.MAX_SAFE_INTEGER,
};

/** Fetch: its responses are the large ones, so a connection handles one Fetch at a time. */
const isFetch = (frame: Buffer): boolean => frame.length >= 2 && frame.readInt16BE(0) === ApiKey.Fetch;

/** What the connections share: the limits, the counters of limit hits, the broker-wide request queue. */
class ServerState {
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

/** Kafka's SaslServerAuthenticator.MAX_RECEIVE_SIZE: the largest frame read before authentication. */
const MAX_AUTH_FRAME_BYTES = 524_288;

/**
 * Kafka's SocketServer: accepts connections on every listener, splits each byte stream into
 * frames, handles requests as they arrive (pipelining) and writes responses strictly in request
 * order per connection. A malformed or oversized frame closes only its own connection.
 */
export class SocketServer {
  readonly #opts: SocketServerOptions;
  readonly #servers = new Map<string, net.Server>();
  readonly #connections = new Set<RequestChannel>();
  readonly #perIp = new Map<string, number>();
  #clientConnections = 0;
  readonly #state: ServerState;
  #nextId = 0;
  #stopping = false;

  constructor(opts: SocketServerOptions) {
    this.#opts = opts;
    this.#state = new ServerState({ ...NO_LIMITS, ...opts.limits }, opts.logger);
  }

  /** How many times each limit was hit since startup (metrics). */
  limitHits(): ReadonlyMap<LimitName, number> {
    return this.#state.limitHits;
  }

  /** Requests being handled now (queued.max.requests counts them). */
  get queuedRequests(): number {
    return this.#state.queued;
  }

  async start(): Promise<void> {
    for (const l of this.#opts.listeners) {
      const server = l.tls
        ? tls.createServer(l.tls, (socket) => this.#acceptTls(socket, l))
        : net.createServer({ noDelay: true }, (socket) => this.#accept(socket, l, ANONYMOUS_PRINCIPAL));
      if (l.tls) {
        server.on('tlsClientError', (err, socket) =>
          this.#opts.logger.info({ listener: l.listenerName, conn: `${socket.remoteAddress}:${socket.remotePort}`, reason: err.message }, 'TLS handshake failed'),
        );
      }
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: l.host === '' ? '0.0.0.0' : l.host, port: l.port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.on('error', (err) => this.#opts.logger.error({ err, listener: l.listenerName }, 'listener error'));
      this.#servers.set(l.listenerName, server);
      this.#opts.logger.info({ listener: l.listenerName, host: l.host, port: this.boundPort(l.listenerName) }, 'listening');
    }
  }

  /** The actual port (useful with port 0 in tests). */
  boundPort(listenerName: string): number {
    const addr = this.#servers.get(listenerName)?.address();
    return addr && typeof addr === 'object' ? addr.port : -1;
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  /** A TLS connection: the principal comes from a verified client certificate; an unverified one is refused. */
  #acceptTls(socket: tls.TLSSocket, l: ListenerSpec): void {
    socket.setNoDelay(true);
    const cert = socket.getPeerX509Certificate();
    if (cert && !socket.authorized) {
      this.#opts.logger.info({ listener: l.listenerName, conn: `${socket.remoteAddress}:${socket.remotePort}`, reason: String(socket.authorizationError) }, 'closing connection: client certificate not trusted');
      socket.destroy();
      return;
    }
    this.#accept(socket, l, cert ? sslPrincipal(cert) : ANONYMOUS_PRINCIPAL);
  }

  #accept(socket: net.Socket, l: ListenerSpec, principal: string): void {
    if (this.#stopping) {
      socket.destroy();
      return;
    }
    const limits = this.#state.limits;
    const ip = normalizeAddress(socket.remoteAddress ?? '');
    const counted = l.listenerName !== this.#opts.interBrokerListener;
    const fromIp = this.#perIp.get(ip) ?? 0;
    const ipLimit = limits.maxConnectionsPerIpOverrides.get(ip) ?? limits.maxConnectionsPerIp;
    if (fromIp >= ipLimit) {
      this.#state.hit('max.connections.per.ip', { ip, listener: l.listenerName, count: fromIp }, `closing connection from ${ip}: it has ${fromIp} connections, max.connections.per.ip is ${ipLimit}`);
      socket.destroy();
      return;
    }
    if (counted && this.#clientConnections >= limits.maxConnections) {
      this.#state.hit('max.connections', { ip, listener: l.listenerName, count: this.#clientConnections }, `closing connection from ${ip}: ${this.#clientConnections} connections open, max.connections is ${limits.maxConnections}`);
      socket.destroy();
      return;
    }
    this.#perIp.set(ip, fromIp + 1);
    if (counted) this.#clientConnections++;
    const info: ConnectionInfo = {
      id: ++this.#nextId,
      listenerName: l.listenerName,
      remoteAddress: `${socket.remoteAddress}:${socket.remotePort}`,
      clientHost: normalizeAddress(socket.remoteAddress ?? ''),
      securityProtocol: l.securityProtocol ?? 'PLAINTEXT',
      principal,
    };
    const channel = new RequestChannel(socket, info, this.#opts, this.#state, l.authenticator?.(info) ?? null, () => {
      this.#connections.delete(channel);
      const left = (this.#perIp.get(ip) ?? 1) - 1;
      if (left > 0) this.#perIp.set(ip, left);
      else this.#perIp.delete(ip);
      if (counted) this.#clientConnections--;
    });
    this.#connections.add(channel);
  }

  /** Stops accepting, closes every connection. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const closing = [...this.#servers.values()].map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    for (const c of this.#connections) c.close();
    await Promise.all(closing);
    this.#servers.clear();
  }
}

/**
 * One client connection: frames in, responses out in request order. Frames read wait in a backlog
 * and are handled while the connection may go on: fewer than maxInFlight requests pending, no
 * Fetch pending (one large response at a time), unsent bytes under the bound, room in the
 * broker-wide request queue. Otherwise the socket is paused (muted) until that changes.
 */
class RequestChannel {
  readonly #socket: net.Socket;
  readonly #info: ConnectionInfo;
  readonly #opts: SocketServerOptions;
  readonly #state: ServerState;
  readonly #frames: FrameReader;
  readonly #pending: { done: boolean; response: Buffer[] | null; fetch: boolean }[] = [];
  readonly #backlog: Buffer[] = [];
  readonly #maxInFlight: number;
  #fetchesPending = 0;
  #mutedForUnsent = false;
  /** Until the SASL exchange completes: frames are handled one at a time by the authenticator. */
  #authenticator: ConnectionAuthenticator | null;
  readonly #authQueue: Buffer[] = [];
  #authBusy = false;
  #closeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #paused = false;

  constructor(socket: net.Socket, info: ConnectionInfo, opts: SocketServerOptions, state: ServerState, authenticator: ConnectionAuthenticator | null, onClose: () => void) {
    this.#socket = socket;
    this.#info = info;
    this.#opts = opts;
    this.#state = state;
    this.#authenticator = authenticator;
    this.#maxInFlight = opts.maxInFlightPerConnection ?? 64;
    const pool = opts.requestPool;
    this.#frames = new FrameReader({
      maxFrameBytes: authenticator ? Math.min(MAX_AUTH_FRAME_BYTES, opts.maxRequestBytes) : opts.maxRequestBytes,
      allocate: pool && ((size, head) => (head.length >= 2 && head.readInt16BE(0) === ApiKey.Produce ? pool.acquire(size) : undefined)),
    });
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('drain', () => this.pump());
    if (state.limits.connectionsMaxIdleMs > 0) {
      socket.setTimeout(state.limits.connectionsMaxIdleMs, () => {
        state.hit('connections.max.idle.ms', { conn: info.remoteAddress, listener: info.listenerName }, `closing idle connection ${info.remoteAddress}: no traffic for ${state.limits.connectionsMaxIdleMs} ms (connections.max.idle.ms)`);
        this.close();
      });
    }
    socket.on('error', (err) => opts.logger.debug({ err: err.message, conn: info.remoteAddress }, 'connection error'));
    socket.on('close', () => {
      this.#closed = true;
      clearTimeout(this.#closeTimer);
      this.#backlog.length = 0;
      state.waiting.delete(this);
      onClose();
    });
  }

  #onData(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.#frames.push(chunk);
    } catch (err) {
      const reason = err instanceof FrameSizeError ? err.message : String(err);
      this.#state.hit('socket.request.max.bytes', { conn: this.#info.remoteAddress, listener: this.#info.listenerName, reason }, 'closing connection: bad frame size', 'warn');
      this.close();
      return;
    }
    for (const frame of frames) {
      if (this.#closed) return;
      if (this.#authenticator) {
        // Frames may share a chunk with the last SASL token: copy them, the chunk is not ours to keep.
        this.#authQueue.push(Buffer.from(frame));
        void this.#authenticate();
      } else {
        this.#backlog.push(frame);
      }
    }
    this.pump();
  }

  /** Why this connection may not handle its next frame now, or null when it may. */
  #blocked(next: Buffer): LimitName | 'in-flight' | 'fetch' | null {
    if (this.#pending.length >= this.#maxInFlight) return 'in-flight';
    // A second Fetch waits for the first one's response: pipelined fetches could each build a large response.
    if (this.#fetchesPending > 0 && isFetch(next)) return 'fetch';
    if (this.#socket.writableLength > this.#state.limits.maxUnsentBytes) return 'connection.max.unsent.bytes';
    if (this.#state.queued >= this.#state.limits.queuedMaxRequests) return 'queued.max.requests';
    return null;
  }

  /** Handles backlog frames while allowed; mutes the socket while frames wait, unmutes when none do. */
  pump(): void {
    if (this.#closed || this.#authenticator) return;
    while (this.#backlog.length > 0) {
      const why = this.#blocked(this.#backlog[0]!);
      if (why !== null) {
        if (why === 'queued.max.requests' && !this.#state.waiting.has(this)) {
          this.#state.waiting.add(this);
          this.#state.hit('queued.max.requests', { conn: this.#info.remoteAddress, queued: this.#state.queued }, `request queue full (${this.#state.queued} requests, queued.max.requests): connection ${this.#info.remoteAddress} waits`, 'debug');
        }
        if (why === 'connection.max.unsent.bytes' && !this.#mutedForUnsent) {
          this.#mutedForUnsent = true;
          this.#state.hit('connection.max.unsent.bytes', { conn: this.#info.remoteAddress, unsent: this.#socket.writableLength }, `muting ${this.#info.remoteAddress}: ${this.#socket.writableLength} response bytes unsent (connection.max.unsent.bytes)`);
        }
        break;
      }
      this.#mutedForUnsent = false;
      this.#dispatch(this.#backlog.shift()!);
      if (this.#closed) return;
    }
    const mute = this.#backlog.length > 0 || this.#socket.writableLength > this.#state.limits.maxUnsentBytes || this.#pending.length >= this.#maxInFlight;
    if (mute && !this.#paused) {
      this.#paused = true;
      this.#socket.pause();
    } else if (!mute && this.#paused) {
      this.#paused = false;
      this.#socket.resume();
    }
  }

  /** Feeds queued frames to the authenticator one at a time; after success the rest go to the request handler. */
  async #authenticate(): Promise<void> {
    if (this.#authBusy) return;
    this.#authBusy = true;
    try {
      while (this.#authenticator && this.#authQueue.length > 0 && !this.#closed) {
        const step = await this.#authenticator.handle(this.#authQueue.shift()!);
        if (this.#closed) return;
        if (step.response) for (const part of step.response) this.#socket.write(part);
        if (step.state === 'failed') {
          this.#opts.logger.info({ conn: this.#info.remoteAddress, listener: this.#info.listenerName, reason: step.reason }, 'authentication failed');
          this.#authQueue.length = 0;
          this.#socket.pause();
          // Kafka answers, then closes after connection.failed.authentication.delay.ms.
          this.#closeTimer = setTimeout(() => this.close(), this.#opts.failedAuthenticationDelayMs ?? 100);
          return;
        }
        if (step.state === 'complete') {
          this.#info.principal = step.principal!;
          this.#authenticator = null;
          this.#frames.setMaxFrameBytes(this.#opts.maxRequestBytes);
          this.#opts.logger.debug({ conn: this.#info.remoteAddress, listener: this.#info.listenerName, principal: step.principal }, 'authenticated');
        }
      }
      if (!this.#authenticator) {
        this.#backlog.push(...this.#authQueue.splice(0));
        this.pump();
      }
    } finally {
      this.#authBusy = false;
    }
  }

  #dispatch(frame: Buffer): void {
    const fetch = isFetch(frame);
    const slot = { done: false, response: null as Buffer[] | null, fetch };
    this.#pending.push(slot);
    if (fetch) this.#fetchesPending++;
    this.#state.queued++;
    const fail = (err: unknown) => {
      this.#finish(slot);
      this.#opts.logger.warn(
        { conn: this.#info.remoteAddress, listener: this.#info.listenerName, reason: err instanceof Error ? err.message : String(err) },
        'closing connection: malformed request',
      );
      this.close();
    };
    let result: Promise<Buffer[] | null> | Buffer[] | null;
    try {
      result = this.#opts.handler(frame, this.#info);
    } catch (err) {
      fail(err);
      return;
    }
    // A pooled request buffer goes back once the handler answered (not after a failure: parts of the handler may
    // still be running). A frame not from the pool is ignored by release.
    const pool = this.#opts.requestPool;
    if (result instanceof Promise) {
      result.then(
        (response) => {
          pool?.release(frame);
          this.#complete(slot, response);
        },
        (err) => fail(err),
      );
    } else {
      pool?.release(frame);
      this.#complete(slot, result);
    }
  }

  /** A request is no longer being handled: it leaves the broker-wide queue (once). */
  #finish(slot: { done: boolean; fetch: boolean }): void {
    if (slot.done) return;
    slot.done = true;
    if (slot.fetch) this.#fetchesPending--;
    this.#state.release();
  }

  #complete(slot: { done: boolean; response: Buffer[] | null; fetch: boolean }, response: Buffer[] | null): void {
    this.#finish(slot);
    slot.response = response;
    if (this.#closed) return;
    // Write every finished response at the head of the queue, keeping request order.
    this.#socket.cork();
    while (this.#pending.length > 0 && this.#pending[0]!.done) {
      const head = this.#pending.shift()!;
      if (!head.response) continue;
      const onWritten = this.#opts.onWritten;
      for (const part of head.response) {
        if (onWritten) this.#socket.write(part, (err) => err || onWritten(part));
        else this.#socket.write(part);
      }
    }
    this.#socket.uncork();
    this.pump();
  }

  close(): void {
    clearTimeout(this.#closeTimer);
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.destroy();
  }
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is 10.0.0.1, as Java's InetAddress prints it. */
function normalizeAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
