import { defineApi } from '../../api.js';
import type { JoinGroupRequest, JoinGroupResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';
import { v3 } from './v3.js';
import { v4 } from './v4.js';
import { v5 } from './v5.js';
import { v6 } from './v6.js';

export const JoinGroup = defineApi<JoinGroupRequest, JoinGroupResponse>(11, 'JoinGroup', [v0, v1, v2, v3, v4, v5, v6]);
export type * from './types.js';
