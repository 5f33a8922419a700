import { ErrorCode, GregorError } from '@gregor/common';
import type { AclCreation, CreateAclsRequest, CreateAclsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';
import { operationOf, patternTypeOf, permissionOf, resourceTypeOf, type AclBinding } from '../security/acl.js';
import { aclBindingProblem } from '../security/acl-binding-check.js';

/** A creation as an ACL binding, or why it cannot be one (Kafka answers those with INVALID_REQUEST). */
function toBinding(c: AclCreation): AclBinding | string {
  const resourceType = resourceTypeOf(c.resourceType);
  const patternType = patternTypeOf(c.resourcePatternType);
  const operation = operationOf(c.operation);
  const permissionType = permissionOf(c.permissionType);
  if (!resourceType || !patternType || !operation || !permissionType) return 'You can not create ACL bindings with unknown elements';
  const binding: AclBinding = { pattern: { resourceType, name: c.resourceName, patternType }, entry: { principal: c.principal, host: c.host, operation, permissionType } };
  return aclBindingProblem(binding) ?? binding;
}

/** CreateAcls: Cluster Alter; each creation validated, then written to ZooKeeper by the authorizer. One result per creation, in order. */
export function createAclsHandler(s: BrokerServices): ApiHandler<CreateAclsRequest, CreateAclsResponse> {
  return async (req, ctx) => {
    const all = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode, errorMessage })) });
    if (!s.auth.authorizeCluster(ctx, 'Alter')) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    const authorizer = s.auth.authorizer;
    if (!authorizer) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker.');
    const parsed = req.creations.map(toBinding);
    const valid = parsed.filter((p): p is AclBinding => typeof p !== 'string');
    const created = await authorizer.createAcls(valid);
    let next = 0;
    return {
      throttleTimeMs: 0,
      results: parsed.map((p) => {
        if (typeof p === 'string') return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: p };
        const err = created[next++];
        if (!err) return { errorCode: ErrorCode.NONE, errorMessage: null };
        s.log.warn({ err: err.message }, 'CreateAcls failed');
        return { errorCode: err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: err.message };
      }),
    };
  };
}
