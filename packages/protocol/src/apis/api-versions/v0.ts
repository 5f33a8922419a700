// ApiVersions Request (Version: 0) =>
// ApiVersions Response (Version: 0) => error_code [api_keys]
//   api_keys => api_key min_version max_version
import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import type { ApiVersionsRequest, ApiVersionsResponse, ApiVersionsResponseKey } from './types.js';

export function writeApiKeyV0(w: Writer, k: ApiVersionsResponseKey): void {
  w.int16(k.apiKey).int16(k.minVersion).int16(k.maxVersion);
}

export function readApiKeyV0(r: Reader): ApiVersionsResponseKey {
  return { apiKey: r.int16(), minVersion: r.int16(), maxVersion: r.int16() };
}

export const v0: ApiVersionCodec<ApiVersionsRequest, ApiVersionsResponse> = {
  apiKey: 18,
  version: 0,
  flexible: false,
  encodeRequest() {},
  decodeRequest: () => ({ clientSoftwareName: '', clientSoftwareVersion: '' }),
  encodeResponse(w, res) {
    w.int16(res.errorCode).array(res.apiKeys, writeApiKeyV0);
  },
  decodeResponse(r) {
    return { errorCode: r.int16(), apiKeys: r.array(readApiKeyV0, 6), throttleTimeMs: 0 };
  },
};
