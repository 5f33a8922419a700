import type { ApiVersionCodec } from '../../api.js';
import type { SyncGroupRequest, SyncGroupResponse } from './types.js';

/** SyncGroup v0-3 (non-flexible). */
export function syncGroupCodec(v: number): ApiVersionCodec<SyncGroupRequest, SyncGroupResponse> {
  return {
    apiKey: 14,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.groupId).int32(req.generationId).string(req.memberId);
      if (v >= 3) w.nullableString(req.groupInstanceId);
      w.array(req.assignments, (w, a) => w.string(a.memberId).bytes(a.assignment));
    },
    decodeRequest(r) {
      const groupId = r.string();
      const generationId = r.int32();
      const memberId = r.string();
      const groupInstanceId = v >= 3 ? r.nullableString() : null;
      const assignments = r.array((r) => ({ memberId: r.string(), assignment: r.bytes() }), 6);
      return { groupId, generationId, memberId, groupInstanceId, assignments };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode).bytes(res.assignment);
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      return { throttleTimeMs, errorCode: r.int16(), assignment: r.bytes() };
    },
  };
}
