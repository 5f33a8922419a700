import { defineApi } from '../../api.js';
import type { SaslHandshakeRequest, SaslHandshakeResponse } from './types.js';
import { v0 } from './v0.js';
import { v1 } from './v1.js';

export const SaslHandshake = defineApi<SaslHandshakeRequest, SaslHandshakeResponse>(17, 'SaslHandshake', [v0, v1]);
export type * from './types.js';
