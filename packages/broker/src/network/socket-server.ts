import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '@gregor/common';
import { FrameReader, FrameSizeError } from '@gregor/protocol';
import type { SecurityProtocol } from '@gregor/client';
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
  #nextId = 0;
  #stopping = false;


  constructor(opts: SocketServerOptions) {
    this.#opts = opts;
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
    const info: ConnectionInfo = {
      id: ++this.#nextId,
      listenerName: l.listenerName,
      remoteAddress: `${socket.remoteAddress}:${socket.remotePort}`,
      clientHost: normalizeAddress(socket.remoteAddress ?? ''),
      securityProtocol: l.securityProtocol ?? 'PLAINTEXT',
      principal,
    };
    const channel = new RequestChannel(socket, info, this.#opts, l.authenticator?.(info) ?? null, () => this.#connections.delete(channel));
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

/** One client connection: frames in, responses out in request order. */
class RequestChannel {
  readonly #socket: net.Socket;
  readonly #info: ConnectionInfo;
  readonly #opts: SocketServerOptions;
  readonly #frames: FrameReader;
  readonly #pending: { done: boolean; response: Buffer[] | null }[] = [];
  readonly #maxInFlight: number;
  /** Until the SASL exchange completes: frames are handled one at a time by the authenticator. */
  #authenticator: ConnectionAuthenticator | null;
  readonly #authQueue: Buffer[] = [];
  #authBusy = false;
  #closeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #paused = false;

  constructor(socket: net.Socket, info: ConnectionInfo, opts: SocketServerOptions, authenticator: ConnectionAuthenticator | null, onClose: () => void) {
    this.#socket = socket;
    this.#info = info;
    this.#opts = opts;
    this.#authenticator = authenticator;
    this.#maxInFlight = opts.maxInFlightPerConnection ?? 64;
    this.#frames = new FrameReader({ maxFrameBytes: authenticator ? Math.min(MAX_AUTH_FRAME_BYTES, opts.maxRequestBytes) : opts.maxRequestBytes });
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('drain', () => this.#maybeResume());
    socket.on('error', (err) => opts.logger.debug({ err: err.message, conn: info.remoteAddress }, 'connection error'));
    socket.on('close', () => {
      this.#closed = true;
      clearTimeout(this.#closeTimer);
      onClose();
    });
  }

  #onData(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.#frames.push(chunk);
    } catch (err) {
      const reason = err instanceof FrameSizeError ? err.message : String(err);
      this.#opts.logger.warn({ conn: this.#info.remoteAddress, listener: this.#info.listenerName, reason }, 'closing connection: bad frame size');
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
        this.#dispatch(frame);
      }
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
      if (!this.#authenticator) for (const frame of this.#authQueue.splice(0)) this.#dispatch(frame);
    } finally {
      this.#authBusy = false;
    }
  }

  #dispatch(frame: Buffer): void {
    const slot = { done: false, response: null as Buffer[] | null };
    this.#pending.push(slot);
    const fail = (err: unknown) => {
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
    if (result instanceof Promise) {
      result.then(
        (response) => this.#complete(slot, response),
        (err) => fail(err),
      );
    } else {
      this.#complete(slot, result);
    }
    if (!this.#paused && (this.#pending.length >= this.#maxInFlight || this.#socket.writableNeedDrain)) {
      this.#paused = true;
      this.#socket.pause();
    }
  }

  #complete(slot: { done: boolean; response: Buffer[] | null }, response: Buffer[] | null): void {
    slot.done = true;
    slot.response = response;
    if (this.#closed) return;
    // Write every finished response at the head of the queue, keeping request order.
    this.#socket.cork();
    while (this.#pending.length > 0 && this.#pending[0]!.done) {
      const head = this.#pending.shift()!;
      if (head.response) for (const part of head.response) this.#socket.write(part);
    }
    this.#socket.uncork();
    this.#maybeResume();
  }

  #maybeResume(): void {
    if (this.#paused && !this.#closed && this.#pending.length < this.#maxInFlight / 2 && !this.#socket.writableNeedDrain) {
      this.#paused = false;
      this.#socket.resume();
    }
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
