import type { ApiVersionCodec } from '../../api.js';
import { readStringArray, writeStringArray } from '../fields.js';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from './types.js';

/** DeleteGroups v0-1 (non-flexible). */
export function deleteGroupsCodec(v: number): ApiVersionCodec<DeleteGroupsRequest, DeleteGroupsResponse> {
  return {
    apiKey: 42,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      writeStringArray(w, req.groupsNames);
    },
    decodeRequest(r) {
      return { groupsNames: readStringArray(r) };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.results, (w, g) => w.string(g.groupId).int16(g.errorCode));
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      return { throttleTimeMs, results: r.array((r) => ({ groupId: r.string(), errorCode: r.int16() }), 4) };
    },
  };
}
