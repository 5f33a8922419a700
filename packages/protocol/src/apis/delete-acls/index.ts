import { defineApi } from '../../api.js';
import type { DeleteAclsRequest, DeleteAclsResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';

export const DeleteAcls = defineApi<DeleteAclsRequest, DeleteAclsResponse>(31, 'DeleteAcls', [v0, v1, v2]);
export type * from './types.js';
