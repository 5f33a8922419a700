// ApiVersions Request (Version: 1) =>
// ApiVersions Response (Version: 1) => error_code [api_keys] throttle_time_ms
//   api_keys => api_key min_version max_version
import { apiVersionsCodec } from './codec.js';

export const v1 = apiVersionsCodec(1);
