import type { ApiVersionCodec } from '../api.js';
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';

export interface RoundTrip<T> {
  bytes: Buffer;
  decoded: T;
  /** Bytes of the decoded value encoded again. */
  again: Buffer;
  /** Bytes the decoder left unread. */
  leftover: number;
}

/** Encodes a request or response with one codec and decodes it back (test support). */
export function roundTrip<Req, Res, K extends 'Request' | 'Response'>(
  codec: ApiVersionCodec<Req, Res>,
  kind: K,
  value: K extends 'Request' ? Req : Res,
): RoundTrip<K extends 'Request' ? Req : Res> {
  const encode = (v: unknown): Buffer => {
    const w = new Writer();
    w.flexible = codec.flexible;
    if (kind === 'Request') codec.encodeRequest(w, v as Req);
    else codec.encodeResponse(w, v as Res);
    return w.toBuffer();
  };
  const bytes = encode(value);
  const r = new Reader(bytes);
  r.flexible = codec.flexible;
  const decoded = (kind === 'Request' ? codec.decodeRequest(r) : codec.decodeResponse(r)) as K extends 'Request' ? Req : Res;
  return { bytes, decoded, again: encode(decoded), leftover: r.remaining };
}

/** Decodes a captured body with a codec (test support). */
export function decodeBody<Req, Res>(codec: ApiVersionCodec<Req, Res>, kind: 'Request' | 'Response', body: Buffer): { value: Req | Res; leftover: number } {
  const r = new Reader(body);
  r.flexible = codec.flexible;
  const value = kind === 'Request' ? codec.decodeRequest(r) : codec.decodeResponse(r);
  return { value, leftover: r.remaining };
}

/** Encodes a value with a codec (test support). */
export function encodeBody<Req, Res>(codec: ApiVersionCodec<Req, Res>, kind: 'Request' | 'Response', value: Req | Res): Buffer {
  const w = new Writer();
  w.flexible = codec.flexible;
  if (kind === 'Request') codec.encodeRequest(w, value as Req);
  else codec.encodeResponse(w, value as Res);
  return w.toBuffer();
}
