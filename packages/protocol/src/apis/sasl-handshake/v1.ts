// SaslHandshake Request and Response (Version: 1) => same as version 0
// (then SASL tokens inside SaslAuthenticate requests)
import { sameAs } from '../../api.js';
import { v0 } from './v0.js';

export const v1 = sameAs(v0, 1);
