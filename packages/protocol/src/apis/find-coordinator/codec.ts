import type { ApiVersionCodec } from '../../api.js';
import type { FindCoordinatorRequest, FindCoordinatorResponse } from './types.js';

/** FindCoordinator v0-3; v3 is flexible (compact strings, a tag section ending the body). */
export function findCoordinatorCodec(v: number): ApiVersionCodec<FindCoordinatorRequest, FindCoordinatorResponse> {
  return {
    apiKey: 10,
    version: v,
    flexible: v >= 3,
    encodeRequest(w, req) {
      w.string(req.key);
      if (v >= 1) w.int8(req.keyType ?? 0);
      w.tags();
    },
    decodeRequest(r) {
      const key = r.string();
      const req = v >= 1 ? { key, keyType: r.int8() } : { key };
      r.tags();
      return req;
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs ?? 0);
      w.int16(res.errorCode);
      if (v >= 1) w.nullableString(res.errorMessage ?? null);
      w.int32(res.nodeId).string(res.host).int32(res.port).tags();
    },
    decodeResponse(r) {
      let res: FindCoordinatorResponse;
      if (v === 0) res = { errorCode: r.int16(), nodeId: r.int32(), host: r.string(), port: r.int32() };
      else res = { throttleTimeMs: r.int32(), errorCode: r.int16(), errorMessage: r.nullableString(), nodeId: r.int32(), host: r.string(), port: r.int32() };
      r.tags();
      return res;
    },
  };
}
