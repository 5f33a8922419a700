import { ErrorCode, errorName, KafkaProtocolError } from '@gregor/common';
import { AclOperationCode, AclPatternTypeCode, AclPermissionTypeCode, AclResourceTypeCode, CreateAcls, DeleteAcls, DescribeAcls, type AclBindingFilterFields, type AclConcreteOperation, type AclConcreteResourceType } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { sendToBroker } from './admin-configs.js';

/** Kafka's enum names (org.apache.kafka.common.resource / acl), as AclCommand prints them. */
export type AclResourceType = AclConcreteResourceType;
export type AclPatternType = 'LITERAL' | 'PREFIXED';
export type AclOperation = AclConcreteOperation;
export type AclPermissionType = 'ALLOW' | 'DENY';

/** ResourcePattern: what an ACL applies to (the cluster is named kafka-cluster). */
export interface ResourcePattern {
  resourceType: AclResourceType;
  name: string;
  patternType: AclPatternType;
}

/** AccessControlEntry: who (principal `User:name`, host or `*`) may or may not do what. */
export interface AccessControlEntry {
  principal: string;
  host: string;
  operation: AclOperation;
  permissionType: AclPermissionType;
}

export interface AclBinding {
  pattern: ResourcePattern;
  entry: AccessControlEntry;
}

/** ResourcePatternFilter: ANY matches any type; name null any name; MATCH the literal, `*` and prefixed patterns that apply to the name. */
export interface ResourcePatternFilter {
  resourceType: AclResourceType | 'ANY';
  name: string | null;
  patternType: AclPatternType | 'ANY' | 'MATCH';
}

/** AccessControlEntryFilter: null and ANY match anything. */
export interface AccessControlEntryFilter {
  principal: string | null;
  host: string | null;
  operation: AclOperation | 'ANY';
  permissionType: AclPermissionType | 'ANY';
}

export interface AclBindingFilter {
  pattern: ResourcePatternFilter;
  entry: AccessControlEntryFilter;
}

/** AclBindingFilter.ANY: every binding. */
export const ANY_ACL_BINDING: AclBindingFilter = {
  pattern: { resourceType: 'ANY', name: null, patternType: 'ANY' },
  entry: { principal: null, host: null, operation: 'ANY', permissionType: 'ANY' },
};

/** One binding's outcome of a CreateAcls: `error` null when the broker stored it. */
export interface CreateAclResult {
  binding: AclBinding;
  error: KafkaProtocolError | null;
}

/** One filter's outcome of a DeleteAcls: the bindings it matched, each with its own error. */
export interface DeleteAclsResult {
  filter: AclBindingFilter;
  /** The whole filter failed (nothing deleted by it). */
  error: KafkaProtocolError | null;
  deleted: { binding: AclBinding; error: KafkaProtocolError | null }[];
}

/** The wire codes' names; a code this client does not know is refused rather than guessed. */
function nameOf<T extends Record<string, number>>(codes: T, code: number, what: string): keyof T & string {
  const name = Object.keys(codes).find((k) => codes[k] === code);
  if (name === undefined || name === 'UNKNOWN' || name === 'ANY' || name === 'MATCH') {
    throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `the broker answered an unknown ${what} code ${code}`);
  }
  return name;
}

/** A binding from the wire's codes (DescribeAcls, DeleteAcls answers). */
export function aclBindingOf(resourceType: number, name: string, patternType: number, principal: string, host: string, operation: number, permissionType: number): AclBinding {
  return {
    pattern: { resourceType: nameOf(AclResourceTypeCode, resourceType, 'resource type') as AclResourceType, name, patternType: nameOf(AclPatternTypeCode, patternType, 'pattern type') as AclPatternType },
    entry: { principal, host, operation: nameOf(AclOperationCode, operation, 'operation') as AclOperation, permissionType: nameOf(AclPermissionTypeCode, permissionType, 'permission type') as AclPermissionType },
  };
}

/** A filter in the wire's codes (DescribeAcls, DeleteAcls requests). */
export function aclFilterFields(f: AclBindingFilter): AclBindingFilterFields {
  return {
    resourceTypeFilter: AclResourceTypeCode[f.pattern.resourceType],
    resourceNameFilter: f.pattern.name,
    patternTypeFilter: AclPatternTypeCode[f.pattern.patternType],
    principalFilter: f.entry.principal,
    hostFilter: f.entry.host,
    operation: AclOperationCode[f.entry.operation],
    permissionType: AclPermissionTypeCode[f.entry.permissionType],
  };
}

function failure(code: number, message: string | null | undefined): KafkaProtocolError | null {
  return code === ErrorCode.NONE ? null : new KafkaProtocolError(code, message || errorName(code));
}

/** CreateAcls at any broker (the authorizer's store is ZooKeeper, shared by all): one result per binding, in order. */
export async function createAcls(client: KafkaClient, bindings: readonly AclBinding[]): Promise<CreateAclResult[]> {
  if (bindings.length === 0) return [];
  const res = await sendToBroker(client, null, CreateAcls, {
    creations: bindings.map(({ pattern, entry }) => ({
      resourceType: AclResourceTypeCode[pattern.resourceType],
      resourceName: pattern.name,
      resourcePatternType: AclPatternTypeCode[pattern.patternType],
      principal: entry.principal,
      host: entry.host,
      operation: AclOperationCode[entry.operation],
      permissionType: AclPermissionTypeCode[entry.permissionType],
    })),
  });
  return bindings.map((binding, i) => {
    const r = res.results[i];
    return { binding, error: r ? failure(r.errorCode, r.errorMessage) : failure(ErrorCode.UNKNOWN_SERVER_ERROR, 'no result in the response') };
  });
}

/** DescribeAcls at any broker: the bindings matching the filter; the broker's refusal (e.g. SECURITY_DISABLED) is thrown. */
export async function describeAcls(client: KafkaClient, filter: AclBindingFilter = ANY_ACL_BINDING): Promise<AclBinding[]> {
  const res = await sendToBroker(client, null, DescribeAcls, aclFilterFields(filter));
  const error = failure(res.errorCode, res.errorMessage);
  if (error) throw error;
  return res.resources.flatMap((r) => r.acls.map((a) => aclBindingOf(r.resourceType, r.resourceName, r.patternType, a.principal, a.host, a.operation, a.permissionType)));
}

/** DeleteAcls at any broker: per filter, the bindings it removed (or its error), in order. */
export async function deleteAcls(client: KafkaClient, filters: readonly AclBindingFilter[]): Promise<DeleteAclsResult[]> {
  if (filters.length === 0) return [];
  const res = await sendToBroker(client, null, DeleteAcls, { filters: filters.map(aclFilterFields) });
  return filters.map((filter, i) => {
    const r = res.filterResults[i];
    if (!r) return { filter, error: failure(ErrorCode.UNKNOWN_SERVER_ERROR, 'no result in the response'), deleted: [] };
    return {
      filter,
      error: failure(r.errorCode, r.errorMessage),
      deleted: r.matchingAcls.map((m) => ({ binding: aclBindingOf(m.resourceType, m.resourceName, m.patternType, m.principal, m.host, m.operation, m.permissionType), error: failure(m.errorCode, m.errorMessage) })),
    };
  });
}
