import { ErrorCode, GregorError, InvalidRequestError } from '@gregor/common';
import type { ApiVersionCodec } from '../api.js';
import { ApiKey, getApi, type AnyApiDefinition } from '../api-table.js';
import { encodeRequestHeader, encodeResponseHeader, type RequestHeader } from '../header.js';
import { Reader } from '../primitives/reader.js';
import { writeFrame } from '../header.js';

/** The request's API exists but not in this version; the header is kept so the broker can answer. */
export class UnsupportedVersionError extends GregorError {
  readonly header: RequestHeader;
  readonly api: AnyApiDefinition;

  constructor(header: RequestHeader, api: AnyApiDefinition) {
    super(ErrorCode.UNSUPPORTED_VERSION, `${api.name} v${header.apiVersion} is not supported (supported: v${api.minVersion}-v${api.maxVersion})`);
    this.header = header;
    this.api = api;
  }
}

/** Response header v1 (tagged fields) goes with flexible versions, except for ApiVersions, always v0. */
export function responseHeaderFlexible(codec: { apiKey: number; flexible: boolean }): boolean {
  return codec.flexible && codec.apiKey !== ApiKey.ApiVersions;
}

export interface ClientRequestHeader {
  correlationId: number;
  clientId: string | null;
}

/** Request header v0 (no client id) is only used by ControlledShutdown v0 (Kafka's ControlledShutdownRequest.json). */
function usesRequestHeaderV0(apiKey: number, apiVersion: number): boolean {
  return apiKey === ApiKey.ControlledShutdown && apiVersion === 0;
}

/** A complete request frame (size prefix, header v0, v1 or v2, body). */
export function encodeRequestFrame<Req, Res>(codec: ApiVersionCodec<Req, Res>, header: ClientRequestHeader, request: Req): Buffer[] {
  return writeFrame((w) => {
    if (usesRequestHeaderV0(codec.apiKey, codec.version)) w.int16(codec.apiKey).int16(codec.version).int32(header.correlationId);
    else encodeRequestHeader(w, { apiKey: codec.apiKey, apiVersion: codec.version, correlationId: header.correlationId, clientId: header.clientId }, codec.flexible);
    w.flexible = codec.flexible;
    codec.encodeRequest(w, request);
  });
}

/** A complete response frame (size prefix, header v0 or v1, body). */
export function encodeResponseFrame<Req, Res>(codec: ApiVersionCodec<Req, Res>, correlationId: number, response: Res): Buffer[] {
  return writeFrame((w) => {
    encodeResponseHeader(w, correlationId, responseHeaderFlexible(codec));
    w.flexible = codec.flexible;
    codec.encodeResponse(w, response);
  });
}

/**
 * Reads a request header. Header v0 (no client id) is only used by ControlledShutdown v0; the
 * tagged fields of header v2 are left for the caller, who knows whether the version is flexible.
 */
export function readRequestHeader(r: Reader): RequestHeader {
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = usesRequestHeaderV0(apiKey, apiVersion) ? null : r.nullableString();
  return { apiKey, apiVersion, correlationId, clientId };
}

export interface DecodedRequest<Req = unknown> {
  header: RequestHeader;
  api: AnyApiDefinition;
  codec: ApiVersionCodec<Req, any>;
  request: Req;
}

/**
 * Decodes a request frame (payload after the size prefix) with the codec its header names.
 * Throws InvalidRequestError for an unknown api key (Kafka closes the connection), and
 * UnsupportedVersionError, carrying the header, for a version outside the supported range
 * (ApiVersions then answers with encodeApiVersionsUnsupportedVersion). Malformed bodies throw
 * CorruptDataError.
 */
export function decodeRequestFrame(frame: Buffer, lookup: (apiKey: number) => AnyApiDefinition | undefined = getApi): DecodedRequest {
  const r = new Reader(frame);
  const header = readRequestHeader(r);
  const api = lookup(header.apiKey);
  if (api === undefined) throw new InvalidRequestError(`unknown api key ${header.apiKey} (correlation id ${header.correlationId})`);
  const codec = api.versions.get(header.apiVersion);
  if (codec === undefined) throw new UnsupportedVersionError(header, api);
  if (codec.flexible) r.skipTaggedFields();
  r.flexible = codec.flexible;
  return { header, api, codec, request: codec.decodeRequest(r) };
}

/** The correlation id of a response frame, to find its in-flight request before decoding it. */
export function readResponseCorrelationId(frame: Buffer): number {
  return new Reader(frame).int32();
}

/** Decodes a response frame with the codec of the request it answers. */
export function decodeResponseFrame<Req, Res>(frame: Buffer, codec: ApiVersionCodec<Req, Res>): { correlationId: number; response: Res } {
  const r = new Reader(frame);
  const correlationId = r.int32();
  if (responseHeaderFlexible(codec)) r.skipTaggedFields();
  r.flexible = codec.flexible;
  return { correlationId, response: codec.decodeResponse(r) };
}
