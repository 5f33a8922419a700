import type { ApiVersionCodec } from '../../api.js';
import { readStringArray, writeStringArray } from '../fields.js';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from './types.js';

/** DeleteGroups v0-2; v2 is flexible (compact strings and arrays, a tag section ending every struct). */
export function deleteGroupsCodec(v: number): ApiVersionCodec<DeleteGroupsRequest, DeleteGroupsResponse> {
  return {
    apiKey: 42,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      writeStringArray(w, req.groupsNames);
      w.tags();
    },
    decodeRequest(r) {
      const groupsNames = readStringArray(r);
      r.tags();
      return { groupsNames };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.results, (w, g) => w.string(g.groupId).int16(g.errorCode).tags());
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const results = r.array((r) => {
        const g = { groupId: r.string(), errorCode: r.int16() };
        r.tags();
        return g;
      }, 3);
      r.tags();
      return { throttleTimeMs, results };
    },
  };
}
