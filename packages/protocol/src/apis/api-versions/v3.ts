// First flexible version (request header v2; the response header stays v0, see KIP-511).
// ApiVersions Request (Version: 3) => client_software_name client_software_version TAG_BUFFER
//   client_software_name => COMPACT_STRING
//   client_software_version => COMPACT_STRING
// ApiVersions Response (Version: 3) => error_code [api_keys] throttle_time_ms TAG_BUFFER
//   [api_keys] => COMPACT_ARRAY
//   api_keys => api_key min_version max_version TAG_BUFFER
// Tagged fields 0-2 (supported_features, finalized_features_epoch, finalized_features) are skipped.
import type { ApiVersionCodec } from '../../api.js';
import type { ApiVersionsRequest, ApiVersionsResponse } from './types.js';
import { readApiKeyV0, writeApiKeyV0 } from './v0.js';

export const v3: ApiVersionCodec<ApiVersionsRequest, ApiVersionsResponse> = {
  apiKey: 18,
  version: 3,
  flexible: true,
  encodeRequest(w, req) {
    w.compactString(req.clientSoftwareName ?? '').compactString(req.clientSoftwareVersion ?? '').emptyTaggedFields();
  },
  decodeRequest(r) {
    const clientSoftwareName = r.compactString();
    const clientSoftwareVersion = r.compactString();
    r.skipTaggedFields();
    return { clientSoftwareName, clientSoftwareVersion };
  },
  encodeResponse(w, res) {
    w.int16(res.errorCode);
    w.compactArray(res.apiKeys, (w, k) => {
      writeApiKeyV0(w, k);
      w.emptyTaggedFields();
    });
    w.int32(res.throttleTimeMs ?? 0).emptyTaggedFields();
  },
  decodeResponse(r) {
    const errorCode = r.int16();
    const apiKeys = r.compactArray((r) => {
      const k = readApiKeyV0(r);
      r.skipTaggedFields();
      return k;
    }, 7);
    const throttleTimeMs = r.int32();
    r.skipTaggedFields();
    return { errorCode, apiKeys, throttleTimeMs };
  },
};
