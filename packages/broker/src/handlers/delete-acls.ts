import { ErrorCode } from '@gregor/common';
import { type DeleteAclsFilterResult, type DeleteAclsRequest, type DeleteAclsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';
import { aclFilterOf, filterProblem, operationCode, patternTypeCode, permissionCode, resourceTypeCode, type AclFilter } from '../security/acl.js';

/** DeleteAcls: Cluster Alter; every binding matching each filter is removed. One result per filter, in order. */
export function deleteAclsHandler(s: BrokerServices): ApiHandler<DeleteAclsRequest, DeleteAclsResponse> {
  return async (req, ctx) => {
    const all = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, filterResults: req.filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })) });
    if (!s.auth.authorizeCluster(ctx, 'Alter')) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    const authorizer = s.auth.authorizer;
    if (!authorizer) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker.');
    const filters = req.filters.map(aclFilterOf);
    const problems = filters.map(filterProblem);
    const usable = filters.map((f, i) => (problems[i] ? null : f));
    const results = await authorizer.deleteAcls(usable.filter((f): f is AclFilter => f !== null));
    let next = 0;
    const filterResults = usable.map((f, i): DeleteAclsFilterResult => {
      if (!f) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problems[i]!, matchingAcls: [] };
      const r = results[next++]!;
      if (ctx.apiVersion === 0 && r.deleted.some((d) => d.binding.pattern.patternType !== 'LITERAL')) {
        // Deleted anyway (as Kafka); a v0 response just cannot name prefixed ACLs.
        return { errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: 'Version 0 only supports literal resource pattern types', matchingAcls: [] };
      }
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        matchingAcls: r.deleted.map(({ binding: b, error }) => ({
          errorCode: error ? ErrorCode.UNKNOWN_SERVER_ERROR : ErrorCode.NONE,
          errorMessage: error ? error.message : null,
          resourceType: resourceTypeCode(b.pattern.resourceType),
          resourceName: b.pattern.name,
          patternType: patternTypeCode(b.pattern.patternType),
          principal: b.entry.principal,
          host: b.entry.host,
          operation: operationCode(b.entry.operation),
          permissionType: permissionCode(b.entry.permissionType),
        })),
      };
    });
    return { throttleTimeMs: 0, filterResults };
  };
}

