import { defineApi } from '../../api.js';
import type { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';

export const IncrementalAlterConfigs = defineApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>(44, 'IncrementalAlterConfigs', [v0, v1]);
export type * from './types.js';
