// First flexible version (request header v2; the response header stays v0, see KIP-511).
// ApiVersions Request (Version: 3) => client_software_name client_software_version TAG_BUFFER
//   client_software_name => COMPACT_STRING
//   client_software_version => COMPACT_STRING
// ApiVersions Response (Version: 3) => error_code [api_keys] throttle_time_ms TAG_BUFFER
//   [api_keys] => COMPACT_ARRAY
//   api_keys => api_key min_version max_version TAG_BUFFER
import { apiVersionsCodec } from './codec.js';

export const v3 = apiVersionsCodec(3);
