// SaslHandshake Request (Version: 0) => mechanism
// SaslHandshake Response (Version: 0) => error_code [mechanisms]
// (then raw SASL tokens: i32 size + bytes, no request header, both ways)
import { saslHandshakeCodec } from './codec.js';

export const v0 = saslHandshakeCodec(0);
