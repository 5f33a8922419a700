import type { ApiVersionCodec } from '../../api.js';
import { readStringArray, writeStringArray } from '../fields.js';
import type { DescribeGroupsRequest, DescribeGroupsResponse } from './types.js';

/** Kafka's "authorized operations not requested" marker (Integer.MIN_VALUE). */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** DescribeGroups v0-4 (non-flexible). */
export function describeGroupsCodec(v: number): ApiVersionCodec<DescribeGroupsRequest, DescribeGroupsResponse> {
  return {
    apiKey: 15,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      writeStringArray(w, req.groups);
      if (v >= 3) w.bool(req.includeAuthorizedOperations);
    },
    decodeRequest(r) {
      const groups = readStringArray(r);
      return { groups, includeAuthorizedOperations: v >= 3 ? r.bool() : false };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      w.array(res.groups, (w, g) => {
        w.int16(g.errorCode).string(g.groupId).string(g.groupState).string(g.protocolType).string(g.protocolData);
        w.array(g.members, (w, m) => {
          w.string(m.memberId);
          if (v >= 4) w.nullableString(m.groupInstanceId);
          w.string(m.clientId).string(m.clientHost).bytes(m.memberMetadata).bytes(m.memberAssignment);
        });
        if (v >= 3) w.int32(g.authorizedOperations);
      });
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const groups = r.array(
        (r) => ({
          errorCode: r.int16(),
          groupId: r.string(),
          groupState: r.string(),
          protocolType: r.string(),
          protocolData: r.string(),
          members: r.array(
            (r) => ({
              memberId: r.string(),
              groupInstanceId: v >= 4 ? r.nullableString() : null,
              clientId: r.string(),
              clientHost: r.string(),
              memberMetadata: r.bytes(),
              memberAssignment: r.bytes(),
            }),
            14,
          ),
          authorizedOperations: v >= 3 ? r.int32() : AUTHORIZED_OPERATIONS_OMITTED,
        }),
        14,
      );
      return { throttleTimeMs, groups };
    },
  };
}
