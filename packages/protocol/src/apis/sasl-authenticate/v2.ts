// SaslAuthenticate Request (Version: 2) => auth_bytes TAG_BUFFER     (flexible)
// SaslAuthenticate Response (Version: 2) => error_code error_message auth_bytes session_lifetime_ms TAG_BUFFER
import { saslAuthenticateCodec } from './codec.js';

export const v2 = saslAuthenticateCodec(2);
