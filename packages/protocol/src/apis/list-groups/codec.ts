import type { ApiVersionCodec } from '../../api.js';
import type { ListGroupsRequest, ListGroupsResponse } from './types.js';

/** ListGroups v0-3; v3 is flexible (its request is just an empty tag section). */
export function listGroupsCodec(v: number): ApiVersionCodec<ListGroupsRequest, ListGroupsResponse> {
  return {
    apiKey: 16,
    version: v,
    flexible: v >= 3,
    encodeRequest(w) {
      w.tags();
    },
    decodeRequest(r) {
      r.tags();
      return {};
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode);
      w.array(res.groups, (w, g) => w.string(g.groupId).string(g.protocolType).tags());
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const errorCode = r.int16();
      const groups = r.array((r) => {
        const g = { groupId: r.string(), protocolType: r.string() };
        r.tags();
        return g;
      }, 2);
      r.tags();
      return { throttleTimeMs, errorCode, groups };
    },
  };
}
