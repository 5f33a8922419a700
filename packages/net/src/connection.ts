import net from 'node:net';
import tls from 'node:tls';
import { CorruptDataError, GregorError, TimeoutError, silentLogger, type Logger } from '@gregor/common';
import {
  ApiVersions,
  DirectFrameReceiver,
  FrameReader,
  SaslAuthenticate,
  SaslHandshake,
  Reader,
  decodeResponseHeader,
  encodeRequestFrame,
  responseHeaderFlexible,
  type ApiDefinition,
} from '@gregor/protocol';
import { AuthenticationError, NetworkError, NoCommonVersionError } from './errors.js';
import { type ClientSecurity } from './security/client-security.js';
import { saslAuthenticate } from './security/sasl-client.js';

export interface ConnectionOptions {
  host: string;
  port: number;
  /** Sent in every request header (Kafka's `client.id`). */
  clientId?: string;
  /** Time allowed for the TCP connect plus the ApiVersions exchange. Default 10000. */
  connectTimeoutMs?: number;
  /** Default time a request may wait for its response (Kafka's `request.timeout.ms`). Default 30000. */
  requestTimeoutMs?: number;
  /** Largest response frame accepted. Default 100 MiB. */
  maxFrameBytes?: number;
  /** TLS and/or SASL (SSL, SASL_PLAINTEXT, SASL_SSL); absent = PLAINTEXT. */
  security?: ClientSecurity;
  /**
   * Memory for response frames too large for one read (a pool, which decides what it pools, and whose buffers the
   * owner gives back once done with a response); default a fresh buffer each. Smaller frames are views of the
   * read buffer either way.
   */
  frameBuffers?: { acquire(size: number): Buffer };
  logger?: Logger;
}

export interface SendOptions {
  /** A specific version; otherwise the highest one both sides support. */
  version?: number;
  /** Overrides `requestTimeoutMs` (long-poll fetches need maxWaitMs on top). */
  timeoutMs?: number;
  /** false for requests the broker never answers (Produce with acks=0). Default true. */
  expectResponse?: boolean;
}

export interface VersionRange {
  minVersion: number;
  maxVersion: number;
}

interface InFlight {
  correlationId: number;
  name: string;
  flexibleResponseHeader: boolean;
  decode(r: Reader): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout | undefined;
  /** Timed out: its response, when it comes, is read and dropped to keep the order. */
  abandoned: boolean;
}

type State = 'idle' | 'connecting' | 'ready' | 'closed';

const API_VERSIONS_VERSION = 2;
const MAX_CORRELATION_ID = 0x7fffffff;

/**
 * One TCP connection to one broker. Requests are pipelined: many may be in flight, and since a
 * Kafka broker answers a connection's requests strictly in order, each response is matched with
 * the oldest request still waiting (its correlation id is checked). Any socket failure rejects
 * every waiting request with a retriable NetworkError and closes the connection for good; the
 * owner opens a new one.
 */
export class Connection {
  readonly host: string;
  readonly port: number;
  readonly clientId: string;
  readonly #connectTimeoutMs: number;
  readonly #requestTimeoutMs: number;
  readonly #maxFrameBytes: number;
  readonly #frameBuffers: ConnectionOptions['frameBuffers'];
  readonly #security: ClientSecurity | undefined;
  readonly #log: Logger;

  #state: State = 'idle';
  #socket: net.Socket | undefined;
  #connecting: Promise<void> | undefined;
  #nextCorrelationId = 0;
  readonly #inFlight: InFlight[] = [];
  #apiVersions = new Map<number, VersionRange>();
  #closeError: Error | undefined;
  #resolveClosed!: (error: Error | undefined) => void;
  /** Resolves (never rejects) once the connection is closed, with the failure if there was one. */
  readonly closed: Promise<Error | undefined>;

  constructor(options: ConnectionOptions) {
    this.host = options.host;
    this.port = options.port;
    this.clientId = options.clientId ?? 'gregor';
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#maxFrameBytes = options.maxFrameBytes ?? 100 * 1024 * 1024;
    this.#frameBuffers = options.frameBuffers;
    this.#security = options.security;
    this.#log = (options.logger ?? silentLogger()).child({ broker: `${this.host}:${this.port}` });
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  get address(): string {
    return `${this.host}:${this.port}`;
  }

  get isReady(): boolean {
    return this.#state === 'ready';
  }

  get isClosed(): boolean {
    return this.#state === 'closed';
  }

  /** Requests sent and not yet answered (timed-out ones included until their response is read). */
  get inFlightCount(): number {
    return this.#inFlight.length;
  }

  /** The broker's supported versions per api key, learnt through ApiVersions on connect. */
  get apiVersions(): ReadonlyMap<number, VersionRange> {
    return this.#apiVersions;
  }

  /** Opens the socket and negotiates versions; concurrent calls share one attempt. */
  connect(): Promise<void> {
    if (this.#state === 'closed') return Promise.reject(this.#closedError());
    this.#connecting ??= this.#open();
    return this.#connecting;
  }

  async #open(): Promise<void> {
    this.#state = 'connecting';
    const tlsOptions = this.#security?.tls;
    const socket = tlsOptions
      ? tls.connect({ ...tlsOptions, host: this.host, port: this.port, ...(tlsOptions.servername === undefined && net.isIP(this.host) === 0 ? { servername: this.host } : {}) })
      : net.connect({ host: this.host, port: this.port, noDelay: true, onread: this.#directReads() });
    if (tlsOptions) {
      socket.setNoDelay(true);
      const pool = this.#frameBuffers;
      const frames = new FrameReader({ maxFrameBytes: this.#maxFrameBytes, ...(pool ? { allocate: (size: number) => pool.acquire(size) } : {}) });
      socket.on('data', (chunk: Buffer) => this.#onFrames(() => frames.push(chunk)));
    }
    this.#socket = socket;
    let secured = !tlsOptions;
    socket.on('error', (error) =>
      this.#fail(
        !secured && isTlsFailure(error)
          ? new AuthenticationError(`SSL handshake with ${this.address} failed: ${error.message}`, { cause: error })
          : new NetworkError(`connection to ${this.address} failed: ${error.message}`, { cause: error }),
      ),
    );
    socket.on('close', () => this.#fail(new NetworkError(`connection to ${this.address} closed`)));

    const timer = setTimeout(() => this.#fail(new TimeoutError(`connecting to ${this.address} took more than ${this.#connectTimeoutMs} ms`)), this.#connectTimeoutMs);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once(tlsOptions ? 'secureConnect' : 'connect', () => {
          secured = true;
          resolve();
        });
        void this.closed.then(reject);
      });
      await this.#negotiateVersions();
      const sasl = this.#security?.sasl;
      if (sasl) {
        const send = <Req, Res>(api: ApiDefinition<Req, Res>, version: number, request: Req) => this.#dispatch(api, version, request, { timeoutMs: this.#connectTimeoutMs });
        const versions = { handshake: this.versionFor(SaslHandshake as ApiDefinition<unknown, unknown>), authenticate: this.versionFor(SaslAuthenticate as ApiDefinition<unknown, unknown>) };
        await saslAuthenticate(send, versions, sasl, this.address);
      }
      if (this.#state !== 'connecting') throw this.#closedError();
      this.#state = 'ready';
      this.#log.debug({ apis: this.#apiVersions.size }, 'connected');
    } catch (error) {
      // A half-open connection is useless: close it so the owner opens a new one.
      this.#fail(error instanceof Error ? error : new NetworkError(String(error)));
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A plain socket reads responses straight into their frames' memory (see DirectFrameReceiver). */
  #directReads(): net.OnReadOpts {
    const pool = this.#frameBuffers;
    const receiver = new DirectFrameReceiver(this.#maxFrameBytes, pool && ((size) => pool.acquire(size)));
    return {
      buffer: () => receiver.nextBuffer(),
      callback: (nread: number) => {
        this.#onFrames(() => receiver.onRead(nread));
        return true;
      },
    };
  }

  #onFrames(read: () => Buffer[]): void {
    try {
      for (const frame of read()) this.#onFrame(frame);
    } catch (error) {
      this.#fail(new NetworkError(`bad response stream from ${this.address}: ${(error as Error).message}`, { cause: error }));
    }
  }

  /** ApiVersions v2; a broker that does not know v2 answers error 35 (in the v0 format) naming its own ApiVersions range, and that version is used. */
  async #negotiateVersions(): Promise<void> {
    let version = Math.min(API_VERSIONS_VERSION, ApiVersions.maxVersion);
    for (;;) {
      const response = await this.#dispatch(ApiVersions, version, { clientSoftwareName: 'gregor', clientSoftwareVersion: '0.1.0' }, {
        timeoutMs: this.#connectTimeoutMs,
        decodeFallback: 0,
      });
      if (response.errorCode === 0) {
        this.#apiVersions = new Map(response.apiKeys.map((k) => [k.apiKey, { minVersion: k.minVersion, maxVersion: k.maxVersion }]));
        return;
      }
      const theirs = response.apiKeys.find((k) => k.apiKey === ApiVersions.apiKey);
      const next = theirs ? Math.min(theirs.maxVersion, version - 1) : 0;
      if (response.errorCode !== 35 || version === 0 || next < 0) {
        throw new GregorError(response.errorCode, `ApiVersions v${version} to ${this.address} failed with error ${response.errorCode}`);
      }
      version = next;
    }
  }

  /** The version `send` would use for `api`, or an NoCommonVersionError. */
  versionFor(api: ApiDefinition<unknown, unknown>, wanted?: number): number {
    const theirs = this.#apiVersions.get(api.apiKey);
    if (!theirs) throw new NoCommonVersionError(`broker ${this.address} does not support ${api.name} (api key ${api.apiKey})`);
    const low = Math.max(api.minVersion, theirs.minVersion);
    const high = Math.min(api.maxVersion, theirs.maxVersion);
    if (wanted !== undefined) {
      if (wanted < low || wanted > high) {
        throw new NoCommonVersionError(`${api.name} v${wanted} is not supported: client ${api.minVersion}-${api.maxVersion}, broker ${theirs.minVersion}-${theirs.maxVersion}`);
      }
      return wanted;
    }
    if (low > high) {
      throw new NoCommonVersionError(`no common ${api.name} version: client ${api.minVersion}-${api.maxVersion}, broker ${this.address} ${theirs.minVersion}-${theirs.maxVersion}`);
    }
    return high;
  }

  send<Req, Res>(api: ApiDefinition<Req, Res>, request: Req, options: SendOptions & { expectResponse: false }): Promise<void>;
  send<Req, Res>(api: ApiDefinition<Req, Res>, request: Req, options?: SendOptions): Promise<Res>;
  async send<Req, Res>(api: ApiDefinition<Req, Res>, request: Req, options: SendOptions = {}): Promise<Res | void> {
    if (this.#state !== 'ready') await this.connect();
    const version = this.versionFor(api as ApiDefinition<unknown, unknown>, options.version);
    return this.#dispatch(api, version, request, options);
  }

  #dispatch<Req, Res>(
    api: ApiDefinition<Req, Res>,
    version: number,
    request: Req,
    options: SendOptions & { decodeFallback?: number },
  ): Promise<Res> {
    const socket = this.#socket;
    if (this.#state === 'closed' || !socket) return Promise.reject(this.#closedError());
    const codec = api.versions.get(version);
    if (!codec) return Promise.reject(new NoCommonVersionError(`${api.name} v${version} has no codec`));
    const correlationId = this.#nextCorrelationId;
    this.#nextCorrelationId = correlationId === MAX_CORRELATION_ID ? 0 : correlationId + 1;
    const chunks = encodeRequestFrame(codec, { correlationId, clientId: this.clientId }, request);

    if (options.expectResponse === false) {
      return new Promise<Res>((resolve, reject) => {
        this.#write(socket, chunks, (error) => (error ? reject(new NetworkError(`write to ${this.address} failed`, { cause: error })) : resolve(undefined as Res)));
      });
    }

    return new Promise<Res>((resolve, reject) => {
      const fallback = options.decodeFallback === undefined ? undefined : api.versions.get(options.decodeFallback);
      const entry: InFlight = {
        correlationId,
        name: `${api.name} v${version}`,
        // ApiVersions answers with header v0 whatever its version (so a client can always read it).
        flexibleResponseHeader: responseHeaderFlexible(codec),
        decode: (r) => {
          const start = r.position;
          r.flexible = codec.flexible;
          try {
            return codec.decodeResponse(r);
          } catch (error) {
            if (!fallback || !(error instanceof CorruptDataError)) throw error;
            return fallback.decodeResponse(new Reader(r.buf, start));
          }
        },
        resolve: resolve as (value: unknown) => void,
        reject,
        timer: undefined,
        abandoned: false,
      };
      const timeoutMs = options.timeoutMs ?? this.#requestTimeoutMs;
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        entry.abandoned = true;
        reject(new TimeoutError(`${entry.name} to ${this.address} got no response within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#inFlight.push(entry);
      this.#write(socket, chunks);
    });
  }

  #write(socket: net.Socket, chunks: Buffer[], done?: (error?: Error | null) => void): void {
    socket.cork();
    for (let i = 0; i < chunks.length; i++) {
      if (i === chunks.length - 1) socket.write(chunks[i]!, done);
      else socket.write(chunks[i]!);
    }
    socket.uncork();
  }

  #onFrame(frame: Buffer): void {
    const entry = this.#inFlight.shift();
    if (!entry) throw new CorruptDataError('response received with no request in flight');
    const r = new Reader(frame);
    const correlationId = decodeResponseHeader(r, entry.flexibleResponseHeader);
    if (correlationId !== entry.correlationId) {
      this.#inFlight.unshift(entry);
      throw new CorruptDataError(`response correlation id ${correlationId}, expected ${entry.correlationId} (${entry.name})`);
    }
    clearTimeout(entry.timer);
    if (entry.abandoned) return;
    let response: unknown;
    try {
      response = entry.decode(r);
    } catch (error) {
      // The frame boundary is intact, so only this request is lost.
      entry.reject(error instanceof GregorError ? error : new CorruptDataError(`cannot decode ${entry.name}: ${(error as Error).message}`, { cause: error }));
      return;
    }
    entry.resolve(response);
  }

  #closedError(): Error {
    return new NetworkError(`connection to ${this.address} is closed`, { cause: this.#closeError });
  }

  #fail(error: Error): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closeError = error;
    this.#socket?.destroy();
    const waiting = this.#inFlight.splice(0);
    for (const entry of waiting) {
      clearTimeout(entry.timer);
      if (!entry.abandoned) entry.reject(error instanceof NetworkError ? error : new NetworkError(error.message, { cause: error }));
    }
    if (waiting.length > 0) this.#log.debug({ err: error, inFlight: waiting.length }, 'connection failed');
    this.#resolveClosed(error);
  }

  /** Closes the socket; requests in flight fail with a NetworkError. Safe to call more than once. */
  async close(): Promise<void> {
    this.#fail(new NetworkError(`connection to ${this.address} was closed by the client`));
    await this.closed;
  }
}

/** Errors of the TLS handshake itself (certificate checks, protocol alerts), as opposed to the network. */
function isTlsFailure(error: Error & { code?: string }): boolean {
  const code = error.code ?? '';
  return code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME/.test(code);
}
