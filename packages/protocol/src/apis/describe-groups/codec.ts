import type { ApiVersionCodec } from '../../api.js';
import { readStringArray, writeStringArray } from '../fields.js';
import type { DescribeGroupsRequest, DescribeGroupsResponse } from './types.js';

/** Kafka's "authorized operations not requested" marker (Integer.MIN_VALUE). */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** DescribeGroups v0-5; v5 is flexible (compact strings, bytes and arrays, a tag section ending every struct). */
export function describeGroupsCodec(v: number): ApiVersionCodec<DescribeGroupsRequest, DescribeGroupsResponse> {
  return {
    apiKey: 15,
    version: v,
    flexible: v >= 5,
    encodeRequest(w, req) {
      writeStringArray(w, req.groups);
      if (v >= 3) w.bool(req.includeAuthorizedOperations);
      w.tags();
    },
    decodeRequest(r) {
      const groups = readStringArray(r);
      const includeAuthorizedOperations = v >= 3 ? r.bool() : false;
      r.tags();
      return { groups, includeAuthorizedOperations };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.array(res.groups, (w, g) => {
        w.int16(g.errorCode).string(g.groupId).string(g.groupState).string(g.protocolType).string(g.protocolData);
        w.array(g.members, (w, m) => {
          w.string(m.memberId);
          if (v >= 4) w.nullableString(m.groupInstanceId);
          w.string(m.clientId).string(m.clientHost).bytes(m.memberMetadata).bytes(m.memberAssignment).tags();
        });
        if (v >= 3) w.int32(g.authorizedOperations);
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const groups = r.array((r) => {
        const errorCode = r.int16();
        const groupId = r.string();
        const groupState = r.string();
        const protocolType = r.string();
        const protocolData = r.string();
        const members = r.array((r) => {
          const m = {
            memberId: r.string(),
            groupInstanceId: v >= 4 ? r.nullableString() : null,
            clientId: r.string(),
            clientHost: r.string(),
            memberMetadata: r.bytes(),
            memberAssignment: r.bytes(),
          };
          r.tags();
          return m;
        }, 6);
        const authorizedOperations = v >= 3 ? r.int32() : AUTHORIZED_OPERATIONS_OMITTED;
        r.tags();
        return { errorCode, groupId, groupState, protocolType, protocolData, members, authorizedOperations };
      }, 7);
      r.tags();
      return { throttleTimeMs, groups };
    },
  };
}
