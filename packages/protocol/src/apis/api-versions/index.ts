import { defineApi } from '../../api.js';
import type { ApiVersionsRequest, ApiVersionsResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';
import { v3 } from './v3.js';

export const ApiVersions = defineApi<ApiVersionsRequest, ApiVersionsResponse>(18, 'ApiVersions', [v0, v1, v2, v3]);
export type { ApiVersionsRequest, ApiVersionsResponse, ApiVersionsResponseKey } from './types.js';
export { encodeApiVersionsUnsupportedVersion } from './unsupported-version.js';
