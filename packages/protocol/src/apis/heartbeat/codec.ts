import type { ApiVersionCodec } from '../../api.js';
import type { HeartbeatRequest, HeartbeatResponse } from './types.js';

/** Heartbeat v0-3 (non-flexible). */
export function heartbeatCodec(v: number): ApiVersionCodec<HeartbeatRequest, HeartbeatResponse> {
  return {
    apiKey: 12,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.groupId).int32(req.generationId).string(req.memberId);
      if (v >= 3) w.nullableString(req.groupInstanceId);
    },
    decodeRequest(r) {
      return { groupId: r.string(), generationId: r.int32(), memberId: r.string(), groupInstanceId: v >= 3 ? r.nullableString() : null };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode);
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      return { throttleTimeMs, errorCode: r.int16() };
    },
  };
}
