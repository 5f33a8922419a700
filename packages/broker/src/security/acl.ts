import { ACL_SUPPORTED_OPERATIONS, AclOperationCode, AclPatternTypeCode, AclPermissionTypeCode, AclResourceTypeCode, type AclBindingFilterFields, type AclConcreteResourceType } from '@gregor/protocol';

/**
 * Kafka's ACL model (kafka.security.auth.Acl / org.apache.kafka.common.acl), names as stored in
 * ZooKeeper: an ACL entry grants or denies one operation to a principal from a host, on a resource
 * pattern (a literal name, `*`, or a prefix).
 */
export type ResourceType = 'Topic' | 'Group' | 'Cluster' | 'TransactionalId' | 'DelegationToken';
export type PatternType = 'LITERAL' | 'PREFIXED';
export type Operation = 'All' | 'Read' | 'Write' | 'Create' | 'Delete' | 'Alter' | 'Describe' | 'ClusterAction' | 'DescribeConfigs' | 'AlterConfigs' | 'IdempotentWrite';
export type Permission = 'Allow' | 'Deny';

export interface AclEntry {
  principal: string;
  permissionType: Permission;
  operation: Operation;
  host: string;
}

export interface ResourcePattern {
  resourceType: ResourceType;
  name: string;
  patternType: PatternType;
}

export interface AclBinding {
  pattern: ResourcePattern;
  entry: AclEntry;
}

export const CLUSTER_RESOURCE_NAME = 'kafka-cluster';
export const WILDCARD_RESOURCE = '*';
export const WILDCARD_PRINCIPAL = 'User:*';
export const WILDCARD_HOST = '*';

// ---- wire codes <-> names ----------------------------------------------------------------------

const RESOURCE_TYPES: [ResourceType, number][] = [
  ['Topic', AclResourceTypeCode.TOPIC],
  ['Group', AclResourceTypeCode.GROUP],
  ['Cluster', AclResourceTypeCode.CLUSTER],
  ['TransactionalId', AclResourceTypeCode.TRANSACTIONAL_ID],
  ['DelegationToken', AclResourceTypeCode.DELEGATION_TOKEN],
];
const OPERATIONS: [Operation, number][] = [
  ['All', AclOperationCode.ALL],
  ['Read', AclOperationCode.READ],
  ['Write', AclOperationCode.WRITE],
  ['Create', AclOperationCode.CREATE],
  ['Delete', AclOperationCode.DELETE],
  ['Alter', AclOperationCode.ALTER],
  ['Describe', AclOperationCode.DESCRIBE],
  ['ClusterAction', AclOperationCode.CLUSTER_ACTION],
  ['DescribeConfigs', AclOperationCode.DESCRIBE_CONFIGS],
  ['AlterConfigs', AclOperationCode.ALTER_CONFIGS],
  ['IdempotentWrite', AclOperationCode.IDEMPOTENT_WRITE],
];

const byName = <T extends string>(pairs: [T, number][]) => new Map(pairs);
const byCode = <T extends string>(pairs: [T, number][]) => new Map(pairs.map(([n, c]) => [c, n]));
const RESOURCE_CODE = byName(RESOURCE_TYPES);
const RESOURCE_NAME = byCode(RESOURCE_TYPES);
const OPERATION_CODE = byName(OPERATIONS);
const OPERATION_NAME = byCode(OPERATIONS);

export const resourceTypeCode = (t: ResourceType): number => RESOURCE_CODE.get(t)!;
export const resourceTypeOf = (code: number): ResourceType | undefined => RESOURCE_NAME.get(code);
export const operationCode = (o: Operation): number => OPERATION_CODE.get(o)!;
export const operationOf = (code: number): Operation | undefined => OPERATION_NAME.get(code);
export const patternTypeCode = (p: PatternType): number => (p === 'LITERAL' ? AclPatternTypeCode.LITERAL : AclPatternTypeCode.PREFIXED);
export const patternTypeOf = (code: number): PatternType | undefined =>
  code === AclPatternTypeCode.LITERAL ? 'LITERAL' : code === AclPatternTypeCode.PREFIXED ? 'PREFIXED' : undefined;
export const permissionCode = (p: Permission): number => (p === 'Allow' ? AclPermissionTypeCode.ALLOW : AclPermissionTypeCode.DENY);
export const permissionOf = (code: number): Permission | undefined =>
  code === AclPermissionTypeCode.ALLOW ? 'Allow' : code === AclPermissionTypeCode.DENY ? 'Deny' : undefined;

export function isOperation(s: string): s is Operation {
  return OPERATION_CODE.has(s as Operation);
}

export function isPermission(s: string): s is Permission {
  return s === 'Allow' || s === 'Deny';
}

/** Kafka's AclEntry.supportedOperations (protocol's ACL_SUPPORTED_OPERATIONS) in this module's names. */
export const SUPPORTED_OPERATIONS = {} as Record<ResourceType, readonly Operation[]>;
for (const [type, code] of RESOURCE_TYPES) {
  const key = (Object.keys(AclResourceTypeCode) as (keyof typeof AclResourceTypeCode)[]).find((k) => AclResourceTypeCode[k] === code) as AclConcreteResourceType;
  SUPPORTED_OPERATIONS[type] = ACL_SUPPORTED_OPERATIONS[key].map((op) => operationOf(AclOperationCode[op])!);
}

/** Operations as the int32 bit field of Metadata and DescribeGroups (bit n = operation code n; Utils.to32BitField). */
export function operationsBitField(ops: Iterable<Operation>): number {
  let field = 0;
  for (const op of ops) field |= 1 << operationCode(op);
  return field;
}

// ---- decisions (AclAuthorizer.authorizeAction) ---------------------------------------------------

/** Operations whose Allow also allows `op`: Describe is implied by Read, Write, Delete, Alter; DescribeConfigs by AlterConfigs. */
function allowingOperations(op: Operation): readonly Operation[] {
  if (op === 'Describe') return ['Describe', 'Read', 'Write', 'Delete', 'Alter'];
  if (op === 'DescribeConfigs') return ['DescribeConfigs', 'AlterConfigs'];
  return [op];
}

export function aclMatches(acl: AclEntry, permission: Permission, op: Operation, principal: string, host: string): boolean {
  return (
    acl.permissionType === permission &&
    (acl.principal === principal || acl.principal === WILDCARD_PRINCIPAL) &&
    (acl.operation === op || acl.operation === 'All') &&
    (acl.host === host || acl.host === WILDCARD_HOST)
  );
}

/**
 * The decision for ACLs already matched to a resource: none -> allowEveryoneIfNoAclFound; else
 * denied if any Deny matches, allowed if an Allow for the operation (or one implying it) matches.
 * Super users are decided before this.
 */
export function aclsAllow(acls: readonly AclEntry[], principal: string, host: string, op: Operation, allowEveryoneIfNoAclFound: boolean): boolean {
  if (acls.length === 0) return allowEveryoneIfNoAclFound;
  if (acls.some((a) => aclMatches(a, 'Deny', op, principal, host))) return false;
  return allowingOperations(op).some((o) => acls.some((a) => aclMatches(a, 'Allow', o, principal, host)));
}

// ---- filters (DescribeAcls, DeleteAcls) ---------------------------------------------------------

/** An AclBindingFilter as the wire carries it: null strings and ANY codes match anything. */
export interface AclFilter {
  resourceType: number;
  name: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permissionType: number;
}

/** A filter as DescribeAcls and DeleteAcls carry it on the wire. */
export function aclFilterOf(f: AclBindingFilterFields): AclFilter {
  return {
    resourceType: f.resourceTypeFilter,
    name: f.resourceNameFilter,
    patternType: f.patternTypeFilter,
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: f.operation,
    permissionType: f.permissionType,
  };
}

/**
 * ResourcePatternFilter.matches: type ANY or equal; pattern ANY (any stored type, equal name),
 * MATCH (a stored literal equal to the name or `*`, or a stored prefix of the name), or the
 * same type with an equal name.
 */
export function patternFilterMatches(f: AclFilter, p: ResourcePattern): boolean {
  if (f.resourceType !== AclResourceTypeCode.ANY && f.resourceType !== resourceTypeCode(p.resourceType)) return false;
  if (f.patternType === AclPatternTypeCode.MATCH) {
    if (f.name === null) return true;
    if (p.patternType === 'LITERAL') return p.name === f.name || p.name === WILDCARD_RESOURCE;
    return f.name.startsWith(p.name);
  }
  if (f.patternType !== AclPatternTypeCode.ANY && f.patternType !== patternTypeCode(p.patternType)) return false;
  return f.name === null || f.name === p.name;
}

/** AccessControlEntryFilter.matches. */
export function entryFilterMatches(f: AclFilter, e: AclEntry): boolean {
  return (
    (f.principal === null || f.principal === e.principal) &&
    (f.host === null || f.host === e.host) &&
    (f.operation === AclOperationCode.ANY || f.operation === operationCode(e.operation)) &&
    (f.permissionType === AclPermissionTypeCode.ANY || f.permissionType === permissionCode(e.permissionType))
  );
}

/** Why a filter can never match anything (UNKNOWN codes), or null. */
export function filterProblem(f: AclFilter): string | null {
  if (f.resourceType !== AclResourceTypeCode.ANY && !resourceTypeOf(f.resourceType)) return `unknown resource type ${f.resourceType}`;
  if (![AclPatternTypeCode.ANY, AclPatternTypeCode.MATCH, AclPatternTypeCode.LITERAL, AclPatternTypeCode.PREFIXED].includes(f.patternType as 1)) return `unknown pattern type ${f.patternType}`;
  if (f.operation !== AclOperationCode.ANY && !operationOf(f.operation)) return `unknown operation ${f.operation}`;
  if (f.permissionType !== AclPermissionTypeCode.ANY && !permissionOf(f.permissionType)) return `unknown permission type ${f.permissionType}`;
  return null;
}
