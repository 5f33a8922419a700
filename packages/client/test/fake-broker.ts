/**
 * A tiny Kafka-speaking TCP server for the client's tests: it decodes real request frames with the
 * protocol package's codecs and answers with real response frames, strictly in request order per
 * connection (as a Kafka broker does). Handlers decide each answer; returning NO_RESPONSE sends
 * nothing (acks=0 produce, or a broker that hangs).
 */
import net from 'node:net';
import { ApiVersions, FrameReader, decodeRequestFrame, encodeResponseFrame, type ApiDefinition, type RequestHeader } from '@gregor/protocol';

export const NO_RESPONSE = Symbol('no response');

/** A handler result written as is: whole frames built by the test (malformed answers, KIP-511 replies). */
export class RawResponse {
  constructor(readonly chunks: Buffer[]) {}
}

export interface ReceivedRequest {
  header: RequestHeader;
  body: unknown;
  socket: net.Socket;
}

export type Handler = (body: any, request: ReceivedRequest) => unknown | Promise<unknown>;

export interface FakeBrokerOptions {
  /** The APIs the broker decodes and advertises, with optional narrower advertised ranges. */
  apis: ApiDefinition<any, any>[];
  advertise?: Map<number, { minVersion: number; maxVersion: number }>;
  handlers?: Map<number, Handler>;
}

export class FakeBroker {
  readonly received: ReceivedRequest[] = [];
  readonly sockets = new Set<net.Socket>();
  readonly handlers: Map<number, Handler>;
  readonly #server: net.Server;
  readonly #apis: Map<number, ApiDefinition<any, any>>;
  readonly #advertise: Map<number, { minVersion: number; maxVersion: number }>;

  private constructor(server: net.Server, options: FakeBrokerOptions) {
    this.#server = server;
    this.#apis = new Map([ApiVersions, ...options.apis].map((a) => [a.apiKey, a]));
    this.#advertise = options.advertise ?? new Map();
    this.handlers = options.handlers ?? new Map();
  }

  static async start(options: FakeBrokerOptions): Promise<FakeBroker> {
    const server = net.createServer();
    const broker = new FakeBroker(server, options);
    server.on('connection', (socket) => broker.#serve(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return broker;
  }

  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  get host(): string {
    return '127.0.0.1';
  }

  on(api: ApiDefinition<any, any>, handler: Handler): this {
    this.handlers.set(api.apiKey, handler);
    return this;
  }

  requestsOf(api: ApiDefinition<any, any>): ReceivedRequest[] {
    return this.received.filter((r) => r.header.apiKey === api.apiKey);
  }

  #serve(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const frames = new FrameReader();
    // Each answer waits for the previous one: responses leave in request order.
    let previous: Promise<void> = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      for (const frame of frames.push(chunk)) {
        // Copied: decoded request fields may be views into the frame.
        const { header, api, codec, request: body } = decodeRequestFrame(Buffer.from(frame), (key) => this.#apis.get(key));
        const request: ReceivedRequest = { header, body, socket };
        this.received.push(request);
        const answer = Promise.resolve(this.#handle(api, body, request));
        previous = previous.then(async () => {
          const response = await answer;
          if (response === NO_RESPONSE || socket.destroyed) return;
          if (response instanceof RawResponse) {
            for (const part of response.chunks) socket.write(part);
            return;
          }
          for (const part of encodeResponseFrame(codec, header.correlationId, response)) socket.write(part);
        }, () => undefined);
      }
    });
  }

  #handle(api: ApiDefinition<any, any>, body: unknown, request: ReceivedRequest): unknown {
    const handler = this.handlers.get(api.apiKey);
    if (handler) return handler(body, request);
    if (api.apiKey === ApiVersions.apiKey) return this.apiVersionsResponse();
    throw new Error(`fake broker has no handler for ${api.name}`);
  }

  apiVersionsResponse(): { errorCode: number; apiKeys: { apiKey: number; minVersion: number; maxVersion: number }[]; throttleTimeMs: number } {
    return {
      errorCode: 0,
      apiKeys: [...this.#apis.values()].map((a) => ({ apiKey: a.apiKey, ...(this.#advertise.get(a.apiKey) ?? { minVersion: a.minVersion, maxVersion: a.maxVersion }) })),
      throttleTimeMs: 0,
    };
  }

  /** Cuts every client connection (a broker crash as the client sees it). */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
