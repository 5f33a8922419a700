import { defineApi } from '../../api.js';
import type { ControlledShutdownRequest, ControlledShutdownResponse } from './types.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';

export const ControlledShutdown = defineApi<ControlledShutdownRequest, ControlledShutdownResponse>(7, 'ControlledShutdown', [v1, v2]);
export type * from './types.js';
