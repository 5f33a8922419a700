// SaslAuthenticate Request (Version: 0) => auth_bytes
// SaslAuthenticate Response (Version: 0) => error_code error_message auth_bytes
import { saslAuthenticateCodec } from './codec.js';

export const v0 = saslAuthenticateCodec(0);
