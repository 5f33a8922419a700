import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '@gregor/common';
import type { SecurityProtocol } from '@gregor/net';
import { ANONYMOUS_PRINCIPAL, sslPrincipal } from '../security/principal.js';
import type { AuthStep } from '../security/sasl-server-authenticator.js';
import { NO_LIMITS, ServerState, type ConnectionLimits, type LimitName } from './connection-limits.js';
import { RequestChannel } from './request-channel.js';

export type { ConnectionLimits, LimitName } from './connection-limits.js';

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
        : // Paused, so RequestChannel can move the socket to one that reads into its frames' memory (withDirectReads).
          net.createServer({ noDelay: true, pauseOnConnect: true }, (socket) => this.#accept(socket, l, ANONYMOUS_PRINCIPAL));
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

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is 10.0.0.1, as Java's InetAddress prints it. */
function normalizeAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
