import type { Reader } from './primitives/reader.js';
import type { Writer } from './primitives/writer.js';

/**
 * One version of one Kafka API: the four codecs a client (encode request / decode response)
 * and a broker (decode request / encode response) need. Each API has ONE request type and ONE
 * response type covering all its versions (as Kafka's JSON message definitions do); a version's
 * codec reads and writes the fields that exist in that version and fills absent ones with defaults.
 */
export interface ApiVersionCodec<Req, Res> {
  readonly apiKey: number;
  readonly version: number;
  /** Flexible versions use request header v2 and response header v1 (tagged fields). */
  readonly flexible: boolean;
  encodeRequest(w: Writer, request: Req): void;
  decodeRequest(r: Reader): Req;
  encodeResponse(w: Writer, response: Res): void;
  decodeResponse(r: Reader): Res;
}

export interface ApiDefinition<Req, Res> {
  readonly apiKey: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly versions: ReadonlyMap<number, ApiVersionCodec<Req, Res>>;
}

/** Builds a definition from per-version codecs, checking the versions form one contiguous range. */
export function defineApi<Req, Res>(apiKey: number, name: string, codecs: ApiVersionCodec<Req, Res>[]): ApiDefinition<Req, Res> {
  const versions = new Map(codecs.map((c) => [c.version, c]));
  const sorted = [...versions.keys()].sort((a, b) => a - b);
  const minVersion = sorted[0]!;
  const maxVersion = sorted[sorted.length - 1]!;
  if (sorted.length !== maxVersion - minVersion + 1) throw new Error(`${name}: versions must be contiguous, got ${sorted.join(',')}`);
  for (const c of codecs) if (c.apiKey !== apiKey) throw new Error(`${name} v${c.version}: wrong apiKey ${c.apiKey}`);
  return { apiKey, name, minVersion, maxVersion, versions };
}

/** Reuse a previous version's codec for a version whose format did not change. */
export function sameAs<Req, Res>(codec: ApiVersionCodec<Req, Res>, version: number, flexible = codec.flexible): ApiVersionCodec<Req, Res> {
  return { ...codec, version, flexible };
}
