import type { ApiVersionCodec } from '../../api.js';
import type { ListGroupsRequest, ListGroupsResponse } from './types.js';

/** ListGroups v0-2 (non-flexible). */
export function listGroupsCodec(v: number): ApiVersionCodec<ListGroupsRequest, ListGroupsResponse> {
  return {
    apiKey: 16,
    version: v,
    flexible: false,
    encodeRequest() {},
    decodeRequest() {
      return {};
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.int16(res.errorCode);
      w.array(res.groups, (w, g) => w.string(g.groupId).string(g.protocolType));
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const errorCode = r.int16();
      return { throttleTimeMs, errorCode, groups: r.array((r) => ({ groupId: r.string(), protocolType: r.string() }), 4) };
    },
  };
}
