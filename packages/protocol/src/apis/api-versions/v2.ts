// ApiVersions Request (Version: 2) =>
// ApiVersions Response (Version: 2) => error_code [api_keys] throttle_time_ms   (same as v1)
//   api_keys => api_key min_version max_version
import { sameAs } from '../../api.js';
import { v1 } from './v1.js';

export const v2 = sameAs(v1, 2);
