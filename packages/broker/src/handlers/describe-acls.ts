import { ErrorCode } from '@gregor/common';
import { AclPatternTypeCode, type DescribeAclsRequest, type DescribeAclsResource, type DescribeAclsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';
import { aclFilterOf, operationCode, patternTypeCode, permissionCode, resourceTypeCode } from '../security/acl.js';

/** DescribeAcls: Cluster Describe; the bindings matching the filter, grouped by resource. SECURITY_DISABLED without an authorizer. */
export function describeAclsHandler(s: BrokerServices): ApiHandler<DescribeAclsRequest, DescribeAclsResponse> {
  return (req, ctx) => {
    const fail = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, errorCode, errorMessage, resources: [] });
    if (!s.auth.authorizeCluster(ctx, 'Describe')) return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    const authorizer = s.auth.authorizer;
    if (!authorizer) return fail(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker');
    if (ctx.apiVersion === 0 && req.patternTypeFilter !== AclPatternTypeCode.LITERAL) return fail(ErrorCode.UNSUPPORTED_VERSION, 'Version 0 only supports literal resource pattern types');
    const bindings = authorizer.acls(aclFilterOf(req));
    if (ctx.apiVersion === 0 && bindings.some((b) => b.pattern.patternType !== 'LITERAL')) {
      return fail(ErrorCode.UNSUPPORTED_VERSION, 'Version 0 only supports literal resource pattern types');
    }
    const byResource = new Map<string, DescribeAclsResource>();
    for (const b of bindings) {
      const key = `${b.pattern.resourceType}\u0000${b.pattern.patternType}\u0000${b.pattern.name}`;
      let r = byResource.get(key);
      if (!r) {
        r = { resourceType: resourceTypeCode(b.pattern.resourceType), resourceName: b.pattern.name, patternType: patternTypeCode(b.pattern.patternType), acls: [] };
        byResource.set(key, r);
      }
      r.acls.push({ principal: b.entry.principal, host: b.entry.host, operation: operationCode(b.entry.operation), permissionType: permissionCode(b.entry.permissionType) });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, resources: [...byResource.values()] };
  };
}
