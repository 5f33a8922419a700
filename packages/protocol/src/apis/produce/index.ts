import { defineApi } from '../../api.js';
import type { ProduceRequest, ProduceResponse } from './types.js';
import { v3 } from './v3.js';
import { v4 } from './v4.js';
import { v5 } from './v5.js';
import { v6 } from './v6.js';
import { v7 } from './v7.js';
import { v8 } from './v8.js';

export const Produce = defineApi<ProduceRequest, ProduceResponse>(0, 'Produce', [v3, v4, v5, v6, v7, v8]);
export type * from './types.js';
