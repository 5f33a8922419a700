import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';

/** Request header v1 (v2 adds a tagged-field section for flexible versions). */
export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** Reads api key, version, correlation id and client id; the caller decides about tagged fields. */
export function decodeRequestHeader(r: Reader): RequestHeader {
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = r.nullableString(); // always the classic encoding, even in header v2
  return { apiKey, apiVersion, correlationId, clientId };
}

export function encodeRequestHeader(w: Writer, header: RequestHeader, flexible: boolean): void {
  w.int16(header.apiKey).int16(header.apiVersion).int32(header.correlationId).nullableString(header.clientId);
  if (flexible) w.emptyTaggedFields();
}

/** Response header v0 (v1 adds tagged fields; ApiVersions always answers with v0). */
export function encodeResponseHeader(w: Writer, correlationId: number, flexible: boolean): void {
  w.int32(correlationId);
  if (flexible) w.emptyTaggedFields();
}

export function decodeResponseHeader(r: Reader, flexible: boolean): number {
  const correlationId = r.int32();
  if (flexible) r.skipTaggedFields();
  return correlationId;
}

/** Writes a size-prefixed frame: the i32 size is patched in once the body is written. */
export function writeFrame(build: (w: Writer) => void, initialSize = 256): Buffer[] {
  const w = new Writer(initialSize);
  w.int32(0);
  build(w);
  w.patchInt32(0, w.length - 4);
  return w.chunks();
}
