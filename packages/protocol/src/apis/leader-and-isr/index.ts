import { defineApi } from '../../api.js';
import type { LeaderAndIsrRequest, LeaderAndIsrResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';
import { v3 } from './v3.js';
import { v4 } from './v4.js';

export const LeaderAndIsr = defineApi<LeaderAndIsrRequest, LeaderAndIsrResponse>(4, 'LeaderAndIsr', [v0, v1, v2, v3, v4]);
export type * from './types.js';
export { leaderAndIsrPartitionStates } from './codec.js';
