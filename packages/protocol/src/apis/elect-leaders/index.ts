import { defineApi } from '../../api.js';
import type { ElectLeadersRequest, ElectLeadersResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';

export const ElectLeaders = defineApi<ElectLeadersRequest, ElectLeadersResponse>(43, 'ElectLeaders', [v0, v1, v2]);
export { ElectionType } from './types.js';
export type * from './types.js';
