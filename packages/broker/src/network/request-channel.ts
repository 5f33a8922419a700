import type net from 'node:net';
import tls from 'node:tls';
import { ApiKey, DirectFrameReceiver, FrameReader, FrameSizeError } from '@gregor/protocol';
import type { LimitName, ServerState } from './connection-limits.js';
import { withDirectReads } from './direct-socket.js';
import type { ConnectionAuthenticator, ConnectionInfo, SocketServerOptions } from './socket-server.js';

/** Fetch: its responses are the large ones, so a connection handles one Fetch at a time. */
const isFetch = (frame: Buffer): boolean => frame.length >= 2 && frame.readInt16BE(0) === ApiKey.Fetch;

/** Kafka's SaslServerAuthenticator.MAX_RECEIVE_SIZE: the largest frame read before authentication. */
const MAX_AUTH_FRAME_BYTES = 524_288;

/**
 * One client connection: frames in, responses out in request order. Frames read wait in a backlog
 * and are handled while the connection may go on: fewer than maxInFlight requests pending, no
 * Fetch pending (one large response at a time), unsent bytes under the bound, room in the
 * broker-wide request queue. Otherwise the socket is paused (muted) until that changes.
 * A plain socket is read straight into the frames' memory (DirectFrameReceiver; `socket` must come from a server
 * created with pauseOnConnect); a TLS socket's decrypted chunks are split by a FrameReader.
 */
export class RequestChannel {
  readonly #socket: net.Socket;
  readonly #info: ConnectionInfo;
  readonly #opts: SocketServerOptions;
  readonly #state: ServerState;
  readonly #frames: { setMaxFrameBytes(maxFrameBytes: number): void };
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
    this.#info = info;
    this.#opts = opts;
    this.#state = state;
    this.#authenticator = authenticator;
    this.#maxInFlight = opts.maxInFlightPerConnection ?? 64;
    const pool = opts.requestPool;
    const maxFrameBytes = authenticator ? Math.min(MAX_AUTH_FRAME_BYTES, opts.maxRequestBytes) : opts.maxRequestBytes;
    // Produce requests (the large ones) are assembled in pooled memory, given back once answered.
    const allocate = pool && ((size: number, head: Buffer) => (head.length >= 2 && head.readInt16BE(0) === ApiKey.Produce ? pool.acquire(size) : undefined));
    const receiver = socket instanceof tls.TLSSocket ? null : new DirectFrameReceiver(maxFrameBytes, allocate);
    const direct = receiver && withDirectReads(socket, { buffer: () => receiver.nextBuffer(), callback: (n) => this.#onRead(() => receiver.onRead(n)) });
    if (direct) {
      this.#socket = direct;
      this.#frames = receiver;
    } else {
      const frames = new FrameReader({ maxFrameBytes, allocate });
      this.#socket = socket;
      this.#frames = frames;
      socket.on('data', (chunk: Buffer) => this.#onRead(() => frames.push(chunk)));
      socket.resume(); // a plain listener accepts its sockets paused
    }
    socket = this.#socket;
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

  /** Frames completed by a read (`read` splits them out); returns true: the socket reads on unless pump() mutes it. */
  #onRead(read: () => Buffer[]): true {
    let frames: Buffer[];
    try {
      frames = read();
    } catch (err) {
      const reason = err instanceof FrameSizeError ? err.message : String(err);
      this.#state.hit('socket.request.max.bytes', { conn: this.#info.remoteAddress, listener: this.#info.listenerName, reason }, 'closing connection: bad frame size', 'warn');
      this.close();
      return true;
    }
    for (const frame of frames) {
      if (this.#closed) return true;
      if (this.#authenticator) {
        // Frames may share a chunk with the last SASL token: copy them, the chunk is not ours to keep.
        this.#authQueue.push(Buffer.from(frame));
        void this.#authenticate();
      } else {
        this.#backlog.push(frame);
      }
    }
    this.pump();
    return true;
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
