import { defineApi } from '../../api.js';
import type { StopReplicaRequest, StopReplicaResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';

export const StopReplica = defineApi<StopReplicaRequest, StopReplicaResponse>(5, 'StopReplica', [v0, v1, v2]);
export type * from './types.js';
export { stopReplicaPartitions } from './partitions.js';
