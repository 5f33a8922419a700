import { defineApi } from '../../api.js';
import type { FindCoordinatorRequest, FindCoordinatorResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';
import { v3 } from './v3.js';

export const FindCoordinator = defineApi<FindCoordinatorRequest, FindCoordinatorResponse>(10, 'FindCoordinator', [v0, v1, v2, v3]);
export type * from './types.js';
