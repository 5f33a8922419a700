import type { ApiVersionCodec } from '../../api.js';
import type { LeaveGroupRequest, LeaveGroupResponse } from './types.js';

/** LeaveGroup v0-4; v3+ carry a batch of members (KIP-345); v4 is flexible. */
export function leaveGroupCodec(v: number): ApiVersionCodec<LeaveGroupRequest, LeaveGroupResponse> {
  return {
    apiKey: 13,
    version: v,
    flexible: v >= 4,
    encodeRequest(w, req) {
      w.string(req.groupId);
      if (v < 3) w.string(req.memberId || req.members[0]?.memberId || '');
      else w.array(req.members, (w, m) => w.string(m.memberId).nullableString(m.groupInstanceId).tags());
      w.tags();
    },
    decodeRequest(r) {
      const groupId = r.string();
      if (v < 3) {
        const memberId = r.string();
        return { groupId, memberId, members: [{ memberId, groupInstanceId: null }] };
      }
      const members = r.array((r) => {
        const m = { memberId: r.string(), groupInstanceId: r.nullableString() };
        r.tags();
        return m;
      }, 2);
      r.tags();
      return { groupId, memberId: '', members };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode);
      if (v >= 3) w.array(res.members, (w, m) => w.string(m.memberId).nullableString(m.groupInstanceId).int16(m.errorCode).tags());
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const errorCode = r.int16();
      const members =
        v >= 3
          ? r.array((r) => {
              const m = { memberId: r.string(), groupInstanceId: r.nullableString(), errorCode: r.int16() };
              r.tags();
              return m;
            }, 4)
          : [];
      r.tags();
      return { throttleTimeMs, errorCode, members };
    },
  };
}
