import { defineApi } from '../../api.js';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from './types.js';
import { v0 } from './v0.js';

export const OffsetDelete = defineApi<OffsetDeleteRequest, OffsetDeleteResponse>(47, 'OffsetDelete', [v0]);
export type * from './types.js';
