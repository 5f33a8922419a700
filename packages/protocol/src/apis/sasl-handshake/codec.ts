import type { ApiVersionCodec } from '../../api.js';
import { readStringArray, writeStringArray } from '../fields.js';
import type { SaslHandshakeRequest, SaslHandshakeResponse } from './types.js';

/**
 * SaslHandshake v0-1 (never flexible). The versions differ only in what follows: after v0 the SASL
 * tokens travel as raw size-prefixed frames, after v1 inside SaslAuthenticate requests.
 */
export function saslHandshakeCodec(v: number): ApiVersionCodec<SaslHandshakeRequest, SaslHandshakeResponse> {
  return {
    apiKey: 17,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.mechanism);
    },
    decodeRequest(r) {
      return { mechanism: r.string() };
    },
    encodeResponse(w, res) {
      w.int16(res.errorCode);
      writeStringArray(w, res.mechanisms);
    },
    decodeResponse(r) {
      return { errorCode: r.int16(), mechanisms: readStringArray(r) };
    },
  };
}
