import type { Reader } from '../primitives/reader.js';
import type { Writer } from '../primitives/writer.js';

/** Wire codes of Kafka's org.apache.kafka.common.resource.ResourceType. */
export const AclResourceTypeCode = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6 } as const;
/** Wire codes of Kafka's PatternType (v1+ of the ACL APIs; v0 means LITERAL). */
export const AclPatternTypeCode = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
/** Wire codes of Kafka's AclOperation. */
export const AclOperationCode = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
} as const;
/** A concrete resource type's name (what an ACL can be stored for). */
export type AclConcreteResourceType = Exclude<keyof typeof AclResourceTypeCode, 'UNKNOWN' | 'ANY'>;
/** A concrete operation's name. */
export type AclConcreteOperation = Exclude<keyof typeof AclOperationCode, 'UNKNOWN' | 'ANY'>;

/**
 * Kafka's AclEntry.supportedOperations, in its declaration order: the operations that mean something on each
 * resource type (ALL is accepted on every one). The broker answers authorized operations from it; the acls tool
 * refuses other operations with it.
 */
export const ACL_SUPPORTED_OPERATIONS: Readonly<Record<AclConcreteResourceType, readonly AclConcreteOperation[]>> = {
  TOPIC: ['READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
  GROUP: ['READ', 'DESCRIBE', 'DELETE'],
  CLUSTER: ['CREATE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'ALTER', 'DESCRIBE'],
  TRANSACTIONAL_ID: ['DESCRIBE', 'WRITE'],
  DELEGATION_TOKEN: ['DESCRIBE'],
};

/** Wire codes of Kafka's AclPermissionType. */
export const AclPermissionTypeCode = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

/** An ACL binding filter as DescribeAcls and DeleteAcls carry it (null strings and ANY codes match anything). */
export interface AclBindingFilterFields {
  resourceTypeFilter: number;
  resourceNameFilter: string | null;
  /** v1+; v0 requests are LITERAL (3). */
  patternTypeFilter: number;
  principalFilter: string | null;
  hostFilter: string | null;
  operation: number;
  permissionType: number;
}

export function writeAclFilter(w: Writer, f: AclBindingFilterFields, v: number): void {
  w.int8(f.resourceTypeFilter).nullableString(f.resourceNameFilter);
  if (v >= 1) w.int8(f.patternTypeFilter);
  w.nullableString(f.principalFilter).nullableString(f.hostFilter).int8(f.operation).int8(f.permissionType);
}

export function readAclFilter(r: Reader, v: number): AclBindingFilterFields {
  const resourceTypeFilter = r.int8();
  const resourceNameFilter = r.nullableString();
  const patternTypeFilter = v >= 1 ? r.int8() : AclPatternTypeCode.LITERAL;
  return { resourceTypeFilter, resourceNameFilter, patternTypeFilter, principalFilter: r.nullableString(), hostFilter: r.nullableString(), operation: r.int8(), permissionType: r.int8() };
}
