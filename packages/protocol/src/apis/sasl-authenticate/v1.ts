// SaslAuthenticate Request (Version: 1) => auth_bytes
// SaslAuthenticate Response (Version: 1) => error_code error_message auth_bytes session_lifetime_ms
import { saslAuthenticateCodec } from './codec.js';

export const v1 = saslAuthenticateCodec(1);
