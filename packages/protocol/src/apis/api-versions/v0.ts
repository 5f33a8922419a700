// ApiVersions Request (Version: 0) =>
// ApiVersions Response (Version: 0) => error_code [api_keys]
//   api_keys => api_key min_version max_version
import { apiVersionsCodec } from './codec.js';

export const v0 = apiVersionsCodec(0);
