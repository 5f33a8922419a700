import { defineApi } from '../../api.js';
import type { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from './types.js';
import { v0 } from './v0.js';

export const AlterPartitionReassignments = defineApi<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse>(45, 'AlterPartitionReassignments', [v0]);
export type * from './types.js';
