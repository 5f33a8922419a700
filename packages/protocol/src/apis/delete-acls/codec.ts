import type { ApiVersionCodec } from '../../api.js';
import { AclPatternTypeCode, readAclFilter, writeAclFilter } from '../acl-fields.js';
import type { DeleteAclsFilterResult, DeleteAclsMatchingAcl, DeleteAclsRequest, DeleteAclsResponse } from './types.js';

/** DeleteAcls v0-2: v1 adds pattern types (KIP-290); v2 is flexible. */
export function deleteAclsCodec(v: number): ApiVersionCodec<DeleteAclsRequest, DeleteAclsResponse> {
  return {
    apiKey: 31,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.array(req.filters, (w, f) => {
        writeAclFilter(w, f, v);
        w.tags();
      });
      w.tags();
    },
    decodeRequest(r) {
      const filters = r.array((r) => {
        const f = readAclFilter(r, v);
        r.tags();
        return f;
      }, 7);
      r.tags();
      return { filters };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.filterResults, (w, f) => {
        w.int16(f.errorCode).nullableString(f.errorMessage);
        w.array(f.matchingAcls, (w, m) => {
          w.int16(m.errorCode).nullableString(m.errorMessage).int8(m.resourceType).string(m.resourceName);
          if (v >= 1) w.int8(m.patternType);
          w.string(m.principal).string(m.host).int8(m.operation).int8(m.permissionType).tags();
        });
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const filterResults = r.array((r): DeleteAclsFilterResult => {
        const errorCode = r.int16();
        const errorMessage = r.nullableString();
        const matchingAcls = r.array((r): DeleteAclsMatchingAcl => {
          const errorCode = r.int16();
          const errorMessage = r.nullableString();
          const resourceType = r.int8();
          const resourceName = r.string();
          const patternType = v >= 1 ? r.int8() : AclPatternTypeCode.LITERAL;
          const m = { errorCode, errorMessage, resourceType, resourceName, patternType, principal: r.string(), host: r.string(), operation: r.int8(), permissionType: r.int8() };
          r.tags();
          return m;
        }, 11);
        r.tags();
        return { errorCode, errorMessage, matchingAcls };
      }, 6);
      r.tags();
      return { throttleTimeMs, filterResults };
    },
  };
}
