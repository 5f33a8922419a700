import type { ApiVersionCodec } from '../../api.js';
import type { JoinGroupRequest, JoinGroupResponse } from './types.js';

/** JoinGroup v0-6; v6 is flexible (compact strings, bytes and arrays, a tag section ending every struct). */
export function joinGroupCodec(v: number): ApiVersionCodec<JoinGroupRequest, JoinGroupResponse> {
  return {
    apiKey: 11,
    version: v,
    flexible: v >= 6,
    encodeRequest(w, req) {
      w.string(req.groupId).int32(req.sessionTimeoutMs);
      if (v >= 1) w.int32(req.rebalanceTimeoutMs);
      w.string(req.memberId);
      if (v >= 5) w.nullableString(req.groupInstanceId);
      w.string(req.protocolType);
      w.array(req.protocols, (w, p) => w.string(p.name).bytes(p.metadata).tags());
      w.tags();
    },
    decodeRequest(r) {
      const groupId = r.string();
      const sessionTimeoutMs = r.int32();
      const rebalanceTimeoutMs = v >= 1 ? r.int32() : sessionTimeoutMs;
      const memberId = r.string();
      const groupInstanceId = v >= 5 ? r.nullableString() : null;
      const protocolType = r.string();
      const protocols = r.array((r) => {
        const p = { name: r.string(), metadata: r.bytes() };
        r.tags();
        return p;
      }, 2);
      r.tags();
      return { groupId, sessionTimeoutMs, rebalanceTimeoutMs, memberId, groupInstanceId, protocolType, protocols };
    },
    encodeResponse(w, res) {
      if (v >= 2) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode).int32(res.generationId).string(res.protocolName).string(res.leader).string(res.memberId);
      w.array(res.members, (w, m) => {
        w.string(m.memberId);
        if (v >= 5) w.nullableString(m.groupInstanceId);
        w.bytes(m.metadata).tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 2 ? r.int32() : 0;
      const errorCode = r.int16();
      const generationId = r.int32();
      const protocolName = r.string();
      const leader = r.string();
      const memberId = r.string();
      const members = r.array((r) => {
        const m = { memberId: r.string(), groupInstanceId: v >= 5 ? r.nullableString() : null, metadata: r.bytes() };
        r.tags();
        return m;
      }, 2);
      r.tags();
      return { throttleTimeMs, errorCode, generationId, protocolName, leader, memberId, members };
    },
  };
}
