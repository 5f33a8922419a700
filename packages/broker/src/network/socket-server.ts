import net from 'node:net';
import type { Logger } from '@gregor/common';
import { FrameReader, FrameSizeError } from '@gregor/protocol';

export interface ListenerSpec {
  listenerName: string;
  host: string;
  port: number;
}

export interface ConnectionInfo {
  readonly id: number;
  readonly listenerName: string;
  readonly remoteAddress: string;
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
  #nextId = 0;
  #stopping = false;


  constructor(opts: SocketServerOptions) {
    this.#opts = opts;
  }

  async start(): Promise<void> {
    for (const l of this.#opts.listeners) {
      const server = net.createServer({ noDelay: true }, (socket) => this.#accept(socket, l.listenerName));
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

  #accept(socket: net.Socket, listenerName: string): void {
    if (this.#stopping) {
      socket.destroy();
      return;
    }
    const info: ConnectionInfo = { id: ++this.#nextId, listenerName, remoteAddress: `${socket.remoteAddress}:${socket.remotePort}` };
    const channel = new RequestChannel(socket, info, this.#opts, () => this.#connections.delete(channel));
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
  #closed = false;
  #paused = false;

  constructor(socket: net.Socket, info: ConnectionInfo, opts: SocketServerOptions, onClose: () => void) {
    this.#socket = socket;
    this.#info = info;
    this.#opts = opts;
    this.#maxInFlight = opts.maxInFlightPerConnection ?? 64;
    this.#frames = new FrameReader({ maxFrameBytes: opts.maxRequestBytes });
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('drain', () => this.#maybeResume());
    socket.on('error', (err) => opts.logger.debug({ err: err.message, conn: info.remoteAddress }, 'connection error'));
    socket.on('close', () => {
      this.#closed = true;
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
      this.#dispatch(frame);
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
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.destroy();
  }
}
