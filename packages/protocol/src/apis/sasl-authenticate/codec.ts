import type { ApiVersionCodec } from '../../api.js';
import type { SaslAuthenticateRequest, SaslAuthenticateResponse } from './types.js';

/** SaslAuthenticate v0-2: v1 adds session_lifetime_ms (KIP-368); v2 is flexible. */
export function saslAuthenticateCodec(v: number): ApiVersionCodec<SaslAuthenticateRequest, SaslAuthenticateResponse> {
  return {
    apiKey: 36,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.bytes(req.authBytes).tags();
    },
    decodeRequest(r) {
      const authBytes = r.bytes();
      r.tags();
      return { authBytes };
    },
    encodeResponse(w, res) {
      w.int16(res.errorCode).nullableString(res.errorMessage).bytes(res.authBytes);
      if (v >= 1) w.int64(res.sessionLifetimeMs);
      w.tags();
    },
    decodeResponse(r) {
      const errorCode = r.int16();
      const errorMessage = r.nullableString();
      const authBytes = r.bytes();
      const sessionLifetimeMs = v >= 1 ? r.int64() : 0;
      r.tags();
      return { errorCode, errorMessage, authBytes, sessionLifetimeMs };
    },
  };
}
