import type { ApiVersionCodec } from '../../api.js';
import type { SyncGroupRequest, SyncGroupResponse } from './types.js';

/** SyncGroup v0-4; v4 is flexible (compact strings, bytes and arrays, a tag section ending every struct). */
export function syncGroupCodec(v: number): ApiVersionCodec<SyncGroupRequest, SyncGroupResponse> {
  return {
    apiKey: 14,
    version: v,
    flexible: v >= 4,
    encodeRequest(w, req) {
      w.string(req.groupId).int32(req.generationId).string(req.memberId);
      if (v >= 3) w.nullableString(req.groupInstanceId);
      w.array(req.assignments, (w, a) => w.string(a.memberId).bytes(a.assignment).tags());
      w.tags();
    },
    decodeRequest(r) {
      const groupId = r.string();
      const generationId = r.int32();
      const memberId = r.string();
      const groupInstanceId = v >= 3 ? r.nullableString() : null;
      const assignments = r.array((r) => {
        const a = { memberId: r.string(), assignment: r.bytes() };
        r.tags();
        return a;
      }, 2);
      r.tags();
      return { groupId, generationId, memberId, groupInstanceId, assignments };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode).bytes(res.assignment).tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const errorCode = r.int16();
      const assignment = r.bytes();
      r.tags();
      return { throttleTimeMs, errorCode, assignment };
    },
  };
}
