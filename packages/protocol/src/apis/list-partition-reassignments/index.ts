import { defineApi } from '../../api.js';
import type { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from './types.js';
import { v0 } from './v0.js';

export const ListPartitionReassignments = defineApi<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse>(46, 'ListPartitionReassignments', [v0]);
export type * from './types.js';
