import { defineApi } from '../../api.js';
import type { ListOffsetsRequest, ListOffsetsResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';
import { v3 } from './v3.js';
import { v4 } from './v4.js';
import { v5 } from './v5.js';

export const ListOffsets = defineApi<ListOffsetsRequest, ListOffsetsResponse>(2, 'ListOffsets', [v0, v1, v2, v3, v4, v5]);
export type * from './types.js';
export { ListOffsetsTimestamp } from './types.js';
