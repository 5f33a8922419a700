import type { ApiVersionCodec } from '../../api.js';
import type { HeartbeatRequest, HeartbeatResponse } from './types.js';

/** Heartbeat v0-4; v4 is flexible (compact strings, a tag section ending the body). */
export function heartbeatCodec(v: number): ApiVersionCodec<HeartbeatRequest, HeartbeatResponse> {
  return {
    apiKey: 12,
    version: v,
    flexible: v >= 4,
    encodeRequest(w, req) {
      w.string(req.groupId).int32(req.generationId).string(req.memberId);
      if (v >= 3) w.nullableString(req.groupInstanceId);
      w.tags();
    },
    decodeRequest(r) {
      const req = { groupId: r.string(), generationId: r.int32(), memberId: r.string(), groupInstanceId: v >= 3 ? r.nullableString() : null };
      r.tags();
      return req;
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode).tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const errorCode = r.int16();
      r.tags();
      return { throttleTimeMs, errorCode };
    },
  };
}
