// ApiVersions Request (Version: 1) =>
// ApiVersions Response (Version: 1) => error_code [api_keys] throttle_time_ms
//   api_keys => api_key min_version max_version
import type { ApiVersionCodec } from '../../api.js';
import type { ApiVersionsRequest, ApiVersionsResponse } from './types.js';
import { readApiKeyV0, v0, writeApiKeyV0 } from './v0.js';

export const v1: ApiVersionCodec<ApiVersionsRequest, ApiVersionsResponse> = {
  ...v0,
  version: 1,
  encodeResponse(w, res) {
    w.int16(res.errorCode).array(res.apiKeys, writeApiKeyV0).int32(res.throttleTimeMs ?? 0);
  },
  decodeResponse(r) {
    return { errorCode: r.int16(), apiKeys: r.array(readApiKeyV0, 6), throttleTimeMs: r.int32() };
  },
};
