import { defineApi } from '../../api.js';
import type { DescribeAclsRequest, DescribeAclsResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';

export const DescribeAcls = defineApi<DescribeAclsRequest, DescribeAclsResponse>(29, 'DescribeAcls', [v0, v1, v2]);
export type * from './types.js';
