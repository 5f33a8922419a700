// InitProducerId Request and Response (Version: 1) => same as version 0 (throttle applied after the response, KIP-219)
import { sameAs } from '../../api.js';
import { v0 } from './v0.js';

export const v1 = sameAs(v0, 1);
