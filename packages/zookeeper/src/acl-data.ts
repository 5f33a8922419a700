/**
 * ACL znode payloads exactly as Kafka's AclAuthorizer writes them (kafka.security.auth.Acl,
 * kafka.zk.ZkData 2.4): resource znodes hold {"version":1,"acls":[...]}, literal change notifications
 * "<ResourceType>:<name>", extended ones {"version":1,"resourceType","name","patternType"}.
 */
import { CorruptDataError } from '@gregor/common';
import { aclResourceTypes, type AclPatternTypeName, type AclResourceTypeName } from './paths.js';

/** One ACL entry as stored: principal "User:alice", permissionType Allow|Deny, operation Read|..., host "*" or an IP. */
export interface AclEntryData {
  principal: string;
  permissionType: string;
  operation: string;
  host: string;
}

export interface AclResourceData {
  resourceType: AclResourceTypeName;
  name: string;
  patternType: AclPatternTypeName;
}

function fail(what: string, problem: string): never {
  throw new CorruptDataError(`${what}: ${problem}`);
}

export function encodeAcls(acls: readonly AclEntryData[]): Buffer {
  return Buffer.from(
    JSON.stringify({ version: 1, acls: acls.map((a) => ({ principal: a.principal, permissionType: a.permissionType, operation: a.operation, host: a.host })) }),
    'utf8',
  );
}

export function decodeAcls(what: string, data: Buffer): AclEntryData[] {
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch {
    fail(what, 'not JSON');
  }
  const obj = value as { version?: unknown; acls?: unknown } | null;
  if (!obj || typeof obj !== 'object' || obj.version !== 1 || !Array.isArray(obj.acls)) fail(what, 'expected {"version":1,"acls":[...]}');
  return obj.acls.map((a: unknown, i: number): AclEntryData => {
    const e = a as Record<string, unknown> | null;
    const field = (k: string): string => {
      const v = e?.[k];
      if (typeof v !== 'string') fail(what, `acls[${i}].${k} must be a string`);
      return v;
    };
    return { principal: field('principal'), permissionType: field('permissionType'), operation: field('operation'), host: field('host') };
  });
}

export function isAclResourceType(name: string): name is AclResourceTypeName {
  return (aclResourceTypes as readonly string[]).includes(name);
}

/** The payload of a change notification for a resource of this pattern type. */
export function encodeAclChange(resource: AclResourceData): Buffer {
  if (resource.patternType === 'LITERAL') return Buffer.from(`${resource.resourceType}:${resource.name}`, 'utf8');
  return Buffer.from(JSON.stringify({ version: 1, resourceType: resource.resourceType, name: resource.name, patternType: resource.patternType }), 'utf8');
}

export function decodeAclChange(patternStore: AclPatternTypeName, data: Buffer): AclResourceData {
  const text = data.toString('utf8');
  if (patternStore === 'LITERAL') {
    const i = text.indexOf(':');
    const type = i < 0 ? '' : text.slice(0, i);
    if (!isAclResourceType(type)) fail('/kafka-acl-changes notification', `expected a string in format ResourceType:ResourceName but got ${text}`);
    return { resourceType: type, name: text.slice(i + 1), patternType: 'LITERAL' };
  }
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    fail('/kafka-acl-extended-changes notification', 'not JSON');
  }
  const type = v['resourceType'];
  const pattern = typeof v['patternType'] === 'string' ? (v['patternType'] as string).toUpperCase() : '';
  if (typeof v['version'] !== 'number' || v['version'] > 1) fail('/kafka-acl-extended-changes notification', `unsupported version ${String(v['version'])}`);
  if (typeof type !== 'string' || !isAclResourceType(type) || typeof v['name'] !== 'string' || pattern !== 'PREFIXED') {
    fail('/kafka-acl-extended-changes notification', `unexpected event ${text}`);
  }
  return { resourceType: type, name: v['name'], patternType: 'PREFIXED' };
}
