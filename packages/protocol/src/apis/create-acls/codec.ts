import type { ApiVersionCodec } from '../../api.js';
import { AclPatternTypeCode } from '../acl-fields.js';
import type { AclCreation, CreateAclsRequest, CreateAclsResponse } from './types.js';

/** CreateAcls v0-2: v1 adds the resource pattern type (KIP-290); v2 is flexible. */
export function createAclsCodec(v: number): ApiVersionCodec<CreateAclsRequest, CreateAclsResponse> {
  return {
    apiKey: 30,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.array(req.creations, (w, c) => {
        w.int8(c.resourceType).string(c.resourceName);
        if (v >= 1) w.int8(c.resourcePatternType);
        w.string(c.principal).string(c.host).int8(c.operation).int8(c.permissionType).tags();
      });
      w.tags();
    },
    decodeRequest(r) {
      const creations = r.array((r): AclCreation => {
        const resourceType = r.int8();
        const resourceName = r.string();
        const resourcePatternType = v >= 1 ? r.int8() : AclPatternTypeCode.LITERAL;
        const c = { resourceType, resourceName, resourcePatternType, principal: r.string(), host: r.string(), operation: r.int8(), permissionType: r.int8() };
        r.tags();
        return c;
      }, 9);
      r.tags();
      return { creations };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.results, (w, x) => w.int16(x.errorCode).nullableString(x.errorMessage).tags());
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const results = r.array((r) => {
        const x = { errorCode: r.int16(), errorMessage: r.nullableString() };
        r.tags();
        return x;
      }, 3);
      r.tags();
      return { throttleTimeMs, results };
    },
  };
}
