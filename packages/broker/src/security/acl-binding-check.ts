import { CLUSTER_RESOURCE_NAME, type AclBinding } from './acl.js';
import { parsePrincipal } from './principal.js';

/**
 * Why a binding cannot be stored (KafkaApis.handleCreateAcls' checks, and a name that is no single
 * ZooKeeper node name), or null. Shared by CreateAcls and `gregor acls --authorizer-properties`.
 */
export function aclBindingProblem({ pattern, entry }: AclBinding): string | null {
  if (pattern.resourceType === 'Cluster' && pattern.name !== CLUSTER_RESOURCE_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_RESOURCE_NAME}`;
  if (pattern.name === '') return 'Invalid empty resource name';
  if (pattern.name.includes('/')) return `Invalid resource name ${pattern.name}: it is a ZooKeeper node name`;
  try {
    parsePrincipal(entry.principal);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}
