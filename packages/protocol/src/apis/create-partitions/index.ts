import { defineApi } from '../../api.js';
import type { CreatePartitionsRequest, CreatePartitionsResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';

export const CreatePartitions = defineApi<CreatePartitionsRequest, CreatePartitionsResponse>(37, 'CreatePartitions', [v0, v1]);
export type * from './types.js';
