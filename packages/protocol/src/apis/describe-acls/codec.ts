import type { ApiVersionCodec } from '../../api.js';
import { AclPatternTypeCode, readAclFilter, writeAclFilter } from '../acl-fields.js';
import type { DescribeAclsRequest, DescribeAclsResource, DescribeAclsResponse } from './types.js';

/** DescribeAcls v0-2: v1 adds pattern types (KIP-290); v2 is flexible. */
export function describeAclsCodec(v: number): ApiVersionCodec<DescribeAclsRequest, DescribeAclsResponse> {
  return {
    apiKey: 29,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      writeAclFilter(w, req, v);
      w.tags();
    },
    decodeRequest(r) {
      const filter = readAclFilter(r, v);
      r.tags();
      return filter;
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs).int16(res.errorCode).nullableString(res.errorMessage);
      w.array(res.resources, (w, x) => {
        w.int8(x.resourceType).string(x.resourceName);
        if (v >= 1) w.int8(x.patternType);
        w.array(x.acls, (w, a) => w.string(a.principal).string(a.host).int8(a.operation).int8(a.permissionType).tags());
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const errorCode = r.int16();
      const errorMessage = r.nullableString();
      const resources = r.array((r): DescribeAclsResource => {
        const resourceType = r.int8();
        const resourceName = r.string();
        const patternType = v >= 1 ? r.int8() : AclPatternTypeCode.LITERAL;
        const acls = r.array((r) => {
          const a = { principal: r.string(), host: r.string(), operation: r.int8(), permissionType: r.int8() };
          r.tags();
          return a;
        }, 6);
        r.tags();
        return { resourceType, resourceName, patternType, acls };
      }, 5);
      r.tags();
      return { throttleTimeMs, errorCode, errorMessage, resources };
    },
  };
}
