import type { ApiVersionCodec } from '../../api.js';
import type { LeaveGroupRequest, LeaveGroupResponse } from './types.js';

/** LeaveGroup v0-3 (non-flexible). */
export function leaveGroupCodec(v: number): ApiVersionCodec<LeaveGroupRequest, LeaveGroupResponse> {
  return {
    apiKey: 13,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.groupId);
      if (v < 3) w.string(req.memberId || req.members[0]?.memberId || '');
      else w.array(req.members, (w, m) => w.string(m.memberId).nullableString(m.groupInstanceId));
    },
    decodeRequest(r) {
      const groupId = r.string();
      if (v < 3) {
        const memberId = r.string();
        return { groupId, memberId, members: [{ memberId, groupInstanceId: null }] };
      }
      return { groupId, memberId: '', members: r.array((r) => ({ memberId: r.string(), groupInstanceId: r.nullableString() }), 4) };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode);
      if (v >= 3) w.array(res.members, (w, m) => w.string(m.memberId).nullableString(m.groupInstanceId).int16(m.errorCode));
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const errorCode = r.int16();
      const members = v >= 3 ? r.array((r) => ({ memberId: r.string(), groupInstanceId: r.nullableString(), errorCode: r.int16() }), 6) : [];
      return { throttleTimeMs, errorCode, members };
    },
  };
}
