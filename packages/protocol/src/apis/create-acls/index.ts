import { defineApi } from '../../api.js';
import type { CreateAclsRequest, CreateAclsResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';

export const CreateAcls = defineApi<CreateAclsRequest, CreateAclsResponse>(30, 'CreateAcls', [v0, v1, v2]);
export type * from './types.js';
