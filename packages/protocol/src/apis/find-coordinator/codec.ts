import type { ApiVersionCodec } from '../../api.js';
import type { FindCoordinatorRequest, FindCoordinatorResponse } from './types.js';

/** FindCoordinator v0-2 (non-flexible). */
export function findCoordinatorCodec(v: number): ApiVersionCodec<FindCoordinatorRequest, FindCoordinatorResponse> {
  return {
    apiKey: 10,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.key);
      if (v >= 1) w.int8(req.keyType ?? 0);
    },
    decodeRequest(r) {
      const key = r.string();
      return v >= 1 ? { key, keyType: r.int8() } : { key };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs ?? 0);
      w.int16(res.errorCode);
      if (v >= 1) w.nullableString(res.errorMessage ?? null);
      w.int32(res.nodeId).string(res.host).int32(res.port);
    },
    decodeResponse(r) {
      if (v === 0) return { errorCode: r.int16(), nodeId: r.int32(), host: r.string(), port: r.int32() };
      return { throttleTimeMs: r.int32(), errorCode: r.int16(), errorMessage: r.nullableString(), nodeId: r.int32(), host: r.string(), port: r.int32() };
    },
  };
}
