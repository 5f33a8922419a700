import type { Logger } from '@gregor/common';
import {
  allApis,
  ApiKey,
  decodeRequestFrame,
  encodeApiVersionsUnsupportedVersion,
  encodeResponseFrame,
  getApi,
  supportedApiVersions,
  UnsupportedVersionError,
  type ApiDefinition,
  type ApiKeyValue,
  type ApiRequestOf,
  type ApiResponseOf,
  type RequestHeader,
  type SupportedApiVersion,
} from '@gregor/protocol';
import type { ConnectionInfo } from './network/socket-server.js';

export interface RequestContext {
  header: RequestHeader;
  conn: ConnectionInfo;
  apiVersion: number;
}

/** One handled request, for observers (metrics): sizes include the 4-byte size prefix of each frame. */
export interface RequestEvent {
  apiKey: number;
  api: string;
  apiVersion: number;
  request: unknown;
  /** The response body, or null when the request gets none (acks=0 produce). */
  response: unknown;
  requestBytes: number;
  responseBytes: number;
  /** From the frame's arrival to its response being encoded. */
  durationMs: number;
}

/** Returns the response, or null when the request gets none (acks=0 produce). */
export type ApiHandler<Req, Res> = (request: Req, ctx: RequestContext) => Promise<Res | null> | Res | null;

/** Controller-to-broker APIs (and ApiVersions) are served while the broker is still starting. */
const CONTROL_PLANE_KEYS: ReadonlySet<number> = new Set([ApiKey.ApiVersions, ApiKey.LeaderAndIsr, ApiKey.StopReplica, ApiKey.UpdateMetadata, ApiKey.ControlledShutdown]);

/**
 * Routes each request frame to the handler of its API (Kafka's KafkaApis, but one file per API).
 * Handlers register against protocol's API table (its ApiKey and version ranges); the broker serves
 * exactly that table and answers ApiVersions from it, so `checkServesTable` refuses a gap.
 * An unknown API key, a version outside the supported range (other than ApiVersions) or a body
 * that does not parse throws, and the socket server closes that connection — as Kafka does.
 */
export class KafkaApis {
  readonly #handlers = new Map<number, { api: ApiDefinition<unknown, unknown>; handle: ApiHandler<unknown, unknown> }>();
  readonly #log: Logger;
  /** Requests handled per API name, for metrics. */
  readonly requestCounts = new Map<string, number>();
  /** Told about every handled request (metrics); an observer that throws is ignored. */
  readonly requestObservers = new Set<(event: RequestEvent) => void>(); // metrics
  #ready: Promise<void> | null;
  #open: () => void = () => {};

  constructor(log: Logger) {
    this.#log = log;
    this.#ready = new Promise((resolve) => (this.#open = resolve));
  }

  /**
   * Client requests wait until the broker knows its role (the controller told it who is alive and
   * what it leads), so a restarted broker never answers from an empty view. Idempotent.
   */
  startServingClients(): void {
    this.#ready = null;
    this.#open();
  }

  /** Serves the API with this key of protocol's table, in the table's version range. */
  register<K extends ApiKeyValue>(apiKey: K, handle: ApiHandler<ApiRequestOf<K>, ApiResponseOf<K>>): void {
    const api = getApi(apiKey) as ApiDefinition<unknown, unknown>;
    if (this.#handlers.has(apiKey)) throw new Error(`${api.name} already has a handler`);
    this.#handlers.set(apiKey, { api, handle: handle as ApiHandler<unknown, unknown> });
  }

  /** The APIs of protocol's table that have no handler here, by name. */
  unhandledApis(): string[] {
    return allApis()
      .filter((api) => !this.#handlers.has(api.apiKey))
      .map((api) => api.name);
  }

  /** Throws unless every API of the table has a handler: ApiVersions must never advertise an API the broker would not answer. */
  checkServesTable(): void {
    const missing = this.unhandledApis();
    if (missing.length > 0) throw new Error(`no handler for ${missing.join(', ')}`);
  }

  /** Puts a layer around a registered handler (authorization): the wrapper decides whether and how the handler runs. */
  wrap<K extends ApiKeyValue>(apiKey: K, wrapper: (inner: ApiHandler<ApiRequestOf<K>, ApiResponseOf<K>>) => ApiHandler<ApiRequestOf<K>, ApiResponseOf<K>>): void {
    const registered = this.#handlers.get(apiKey);
    if (!registered) throw new Error(`${getApi(apiKey).name} has no handler to wrap`);
    registered.handle = wrapper(registered.handle as ApiHandler<ApiRequestOf<K>, ApiResponseOf<K>>) as ApiHandler<unknown, unknown>;
  }

  /** The APIs this broker serves, with their version ranges (the ApiVersions answer): protocol's table. */
  supportedApis(): SupportedApiVersion[] {
    return supportedApiVersions();
  }

  handleFrame = (frame: Buffer, conn: ConnectionInfo): Promise<Buffer[] | null> | Buffer[] | null => {
    let decoded;
    try {
      decoded = decodeRequestFrame(frame, (apiKey) => this.#handlers.get(apiKey)?.api);
    } catch (err) {
      if (err instanceof UnsupportedVersionError && err.header.apiKey === ApiKey.ApiVersions) {
        return encodeApiVersionsUnsupportedVersion(err.header.correlationId, err.api.minVersion, err.api.maxVersion);
      }
      throw err;
    }
    const { header, api, codec, request } = decoded;
    this.requestCounts.set(api.name, (this.requestCounts.get(api.name) ?? 0) + 1);
    const handler = this.#handlers.get(header.apiKey)!;
    const ctx: RequestContext = { header, conn, apiVersion: header.apiVersion };
    const gate = this.#ready;
    const result = gate && !CONTROL_PLANE_KEYS.has(header.apiKey) ? gate.then(() => handler.handle(request, ctx)) : handler.handle(request, ctx);
    const startedAt = performance.now(); // metrics
    const respond = (response: unknown): Buffer[] | null => {
      const frames = response === null ? null : encodeResponseFrame(codec, header.correlationId, response);
      if (this.requestObservers.size > 0) this.#observe(header.apiKey, api.name, header.apiVersion, request, response, frame.length + 4, frames, startedAt); // metrics
      return frames;
    };
    if (result instanceof Promise) {
      return result.then(respond, (err) => {
        this.#log.error({ err, api: api.name, client: header.clientId }, 'request handler failed');
        throw err;
      });
    }
    return respond(result);
  };

  // metrics
  #observe(apiKey: number, name: string, apiVersion: number, request: unknown, response: unknown, requestBytes: number, frames: Buffer[] | null, startedAt: number): void {
    let responseBytes = 0;
    if (frames) for (const f of frames) responseBytes += f.length;
    const event: RequestEvent = { apiKey, api: name, apiVersion, request, response, requestBytes, responseBytes, durationMs: performance.now() - startedAt };
    for (const observe of this.requestObservers) {
      try {
        observe(event);
      } catch {
        // Metrics must never break request handling.
      }
    }
  }
}
