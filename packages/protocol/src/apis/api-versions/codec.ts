import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import type { ApiVersionsRequest, ApiVersionsResponse, ApiVersionsResponseKey } from './types.js';

function writeApiKey(w: Writer, k: ApiVersionsResponseKey): void {
  w.int16(k.apiKey).int16(k.minVersion).int16(k.maxVersion).tags();
}

function readApiKey(r: Reader): ApiVersionsResponseKey {
  const k = { apiKey: r.int16(), minVersion: r.int16(), maxVersion: r.int16() };
  r.tags();
  return k;
}

/**
 * ApiVersions v0-3; v3 is flexible (its response header nevertheless stays v0, KIP-511).
 * The response's tagged fields 0-2 (supported_features, finalized_features_epoch, finalized_features)
 * are skipped.
 */
export function apiVersionsCodec(v: number): ApiVersionCodec<ApiVersionsRequest, ApiVersionsResponse> {
  return {
    apiKey: 18,
    version: v,
    flexible: v >= 3,
    encodeRequest(w, req) {
      if (v >= 3) w.string(req.clientSoftwareName ?? '').string(req.clientSoftwareVersion ?? '');
      w.tags();
    },
    decodeRequest(r) {
      const req = v >= 3 ? { clientSoftwareName: r.string(), clientSoftwareVersion: r.string() } : { clientSoftwareName: '', clientSoftwareVersion: '' };
      r.tags();
      return req;
    },
    encodeResponse(w, res) {
      w.int16(res.errorCode).array(res.apiKeys, writeApiKey);
      if (v >= 1) w.int32(res.throttleTimeMs ?? 0);
      w.tags();
    },
    decodeResponse(r) {
      const errorCode = r.int16();
      const apiKeys = r.array(readApiKey, v >= 3 ? 7 : 6);
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      r.tags();
      return { errorCode, apiKeys, throttleTimeMs };
    },
  };
}
