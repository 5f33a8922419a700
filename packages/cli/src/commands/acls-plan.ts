import type { AccessControlEntry, AclOperation, AclPermissionType, AclResourceType, ResourcePatternFilter } from '@gregor/client';
import { ACL_SUPPORTED_OPERATIONS } from '@gregor/protocol';
import { UsageError } from '../usage-error.js';

/** The cluster resource's only name (Kafka's Resource.CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster';

/** Kafka's kafka.security.auth.Operation values: the names --operation takes (case-insensitively), in Kafka's order. */
const OPERATION_NAMES: readonly [string, AclOperation][] = [
  ['Read', 'READ'],
  ['Write', 'WRITE'],
  ['Create', 'CREATE'],
  ['Delete', 'DELETE'],
  ['Alter', 'ALTER'],
  ['Describe', 'DESCRIBE'],
  ['ClusterAction', 'CLUSTER_ACTION'],
  ['AlterConfigs', 'ALTER_CONFIGS'],
  ['DescribeConfigs', 'DESCRIBE_CONFIGS'],
  ['IdempotentWrite', 'IDEMPOTENT_WRITE'],
  ['All', 'ALL'],
];

export type AclPatternFilterType = ResourcePatternFilter['patternType'];

/** The options of `gregor acls` that shape the request (parseArgs values). */
export interface AclArgs {
  add?: boolean;
  remove?: boolean;
  list?: boolean;
  topic?: string[];
  group?: string[];
  cluster?: boolean;
  'transactional-id'?: string[];
  'delegation-token'?: string[];
  'resource-pattern-type'?: string;
  'allow-principal'?: string[];
  'deny-principal'?: string[];
  'allow-host'?: string[];
  'deny-host'?: string[];
  operation?: string[];
  producer?: boolean;
  consumer?: boolean;
  idempotent?: boolean;
  principal?: string[];
  force?: boolean;
}

/** A resource (filter) with the entries to add or remove; no entries on --remove = all of the resource's ACLs. */
export interface ResourceAcls {
  filter: ResourcePatternFilter;
  entries: AccessControlEntry[];
}

export interface AclPlan {
  action: 'add' | 'remove' | 'list';
  /** --add / --remove: each resource with its entries, in Kafka's order (topics, cluster, groups, transactional ids, tokens). */
  resources: ResourceAcls[];
  /** What is listed (after --add and --remove too): empty = every ACL. */
  listFilters: ResourcePatternFilter[];
  /** --list --principal: only these principals' ACLs. */
  listPrincipals: string[];
}

const filterKey = (f: ResourcePatternFilter) => `${f.resourceType}\u0000${f.patternType}\u0000${f.name ?? ''}`;
const entryKey = (e: AccessControlEntry) => `${e.principal}\u0000${e.host}\u0000${e.operation}\u0000${e.permissionType}`;

/** Kafka's PatternTypeConverter: case-insensitive, UNKNOWN refused; LITERAL by default. */
function patternTypeOf(value: string | undefined, usage: string): AclPatternFilterType {
  if (value === undefined) return 'LITERAL';
  const upper = value.trim().toUpperCase();
  if (upper === 'ANY' || upper === 'MATCH' || upper === 'LITERAL' || upper === 'PREFIXED') return upper;
  throw new UsageError(`Unknown resource-pattern-type: ${value} (one of any, match, literal, prefixed)`, usage);
}

/** SecurityUtils.parseKafkaPrincipal: `principalType:name`. */
function principalsOf(values: readonly string[] | undefined, usage: string): string[] {
  return unique(
    (values ?? []).map((raw) => {
      const s = raw.trim();
      const colon = s.indexOf(':');
      if (colon < 0) throw new UsageError(`expected a string in format principalType:principalName but got ${s}`, usage);
      return s;
    }),
  );
}

/** Operation.fromString (case-insensitive; IDEMPOTENT_WRITE style accepted too). */
export function operationOf(name: string, usage: string): AclOperation {
  const wanted = name.trim().replace(/_/g, '').toLowerCase();
  const found = OPERATION_NAMES.find(([kafkaName]) => kafkaName.toLowerCase() === wanted);
  if (!found) throw new UsageError(`${name.trim()} not a valid operation name. The valid names are ${OPERATION_NAMES.map(([n]) => n).join(',')}`, usage);
  return found[1];
}

/** The name --operation takes for an operation (Kafka's kafka.security.auth.Operation). */
function operationName(operation: AclOperation): string {
  return OPERATION_NAMES.find(([, o]) => o === operation)![0];
}

function unique<T>(items: readonly T[], key: (t: T) => string = String): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}

/** Checks a command line as AclCommandOptions.checkArgs does; returns the action. */
function checkArgs(a: AclArgs, usage: string): AclPlan['action'] {
  const actions = (['add', 'remove', 'list'] as const).filter((x) => a[x] === true);
  if (actions.length !== 1) throw new UsageError('Command must include exactly one action: --list, --add, --remove. ', usage);
  const has = (k: keyof AclArgs) => a[k] !== undefined && a[k] !== false;
  const invalidWith = (option: keyof AclArgs, others: (keyof AclArgs)[]) => {
    if (!has(option)) return;
    for (const other of others) if (has(other)) throw new UsageError(`Option "[${option}]" can't be used with option "[${other}]"`, usage);
  };
  invalidWith('list', ['producer', 'consumer', 'allow-host', 'allow-principal', 'deny-host', 'deny-principal']);
  // --producer and --consumer infer the operations and only allow.
  invalidWith('producer', ['operation', 'deny-principal', 'deny-host']);
  invalidWith('consumer', ['operation', 'deny-principal', 'deny-host']);
  if (has('principal') && !has('list')) throw new UsageError('The --principal option is only available if --list is set', usage);
  if (has('producer') && !has('topic')) throw new UsageError('With --producer you must specify a --topic', usage);
  if (has('idempotent') && !has('producer')) throw new UsageError('The --idempotent option is only available if --producer is set', usage);
  if (has('consumer') && (!has('topic') || !has('group') || (!has('producer') && (has('cluster') || has('transactional-id'))))) {
    throw new UsageError('With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.', usage);
  }
  return actions[0]!;
}

/** AclCommand.getResourceFilter: the resources named on the command line with the pattern type; the cluster only as LITERAL. */
function resourceFilters(a: AclArgs, patternType: AclPatternFilterType, dieIfNone: boolean, usage: string): ResourcePatternFilter[] {
  const out: ResourcePatternFilter[] = [];
  for (const t of a.topic ?? []) out.push({ resourceType: 'TOPIC', name: t.trim(), patternType });
  if (patternType === 'LITERAL' && (a.cluster || a.idempotent)) out.push({ resourceType: 'CLUSTER', name: CLUSTER_NAME, patternType: 'LITERAL' });
  for (const g of a.group ?? []) out.push({ resourceType: 'GROUP', name: g.trim(), patternType });
  for (const x of a['transactional-id'] ?? []) out.push({ resourceType: 'TRANSACTIONAL_ID', name: x, patternType });
  for (const d of a['delegation-token'] ?? []) out.push({ resourceType: 'DELEGATION_TOKEN', name: d.trim(), patternType });
  if (out.length === 0 && dieIfNone) {
    throw new UsageError('You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>', usage);
  }
  return unique(out, filterKey);
}

/** AclCommand.getAcl: allowed principals × operations × hosts, then the denied ones; hosts default to * once a principal is given. */
function entriesFor(a: AclArgs, operations: readonly AclOperation[], usage: string): AccessControlEntry[] {
  const hosts = (hostValues: string[] | undefined, principals: string[] | undefined) =>
    hostValues !== undefined ? unique(hostValues.map((h) => h.trim())) : principals !== undefined ? ['*'] : [];
  const make = (principals: string[], permissionType: AclPermissionType, hostList: string[]) =>
    principals.flatMap((principal) => operations.flatMap((operation) => hostList.map((host) => ({ principal, host, operation, permissionType }))));
  const allowed = principalsOf(a['allow-principal'], usage);
  const denied = principalsOf(a['deny-principal'], usage);
  const allowHosts = hosts(a['allow-host'], a['allow-principal']);
  const denyHosts = hosts(a['deny-host'], a['deny-principal']);
  const out: AccessControlEntry[] = [];
  if (allowHosts.length > 0 && allowed.length > 0) out.push(...make(allowed, 'ALLOW', allowHosts));
  if (denyHosts.length > 0 && denied.length > 0) out.push(...make(denied, 'DENY', denyHosts));
  return unique(out, entryKey);
}

/** AclCommand.getResourceFilterToAcls: the command line's resources and entries, --producer / --consumer expanded; operations checked per resource type. */
function resourceAcls(a: AclArgs, patternType: AclPatternFilterType, usage: string): ResourceAcls[] {
  const byKey = new Map<string, ResourceAcls>();
  const put = (filter: ResourcePatternFilter, entries: AccessControlEntry[], merge: boolean) => {
    const old = byKey.get(filterKey(filter));
    byKey.set(filterKey(filter), { filter, entries: merge && old ? unique([...entries, ...old.entries], entryKey) : entries });
  };
  if (!a.producer && !a.consumer) {
    const operations = unique((a.operation ?? ['All']).map((o) => operationOf(o, usage)));
    const entries = entriesFor(a, operations, usage);
    for (const f of resourceFilters(a, patternType, true, usage)) put(f, entries, false);
  }
  if (a.producer) {
    // Write, Describe, Create on topics; Write, Describe on transactional ids; IdempotentWrite on the cluster with --idempotent.
    const filters = resourceFilters(a, patternType, true, usage);
    for (const f of filters.filter((x) => x.resourceType === 'TOPIC')) put(f, entriesFor(a, ['WRITE', 'DESCRIBE', 'CREATE'], usage), false);
    for (const f of filters.filter((x) => x.resourceType === 'TRANSACTIONAL_ID')) put(f, entriesFor(a, ['WRITE', 'DESCRIBE'], usage), false);
    if (a.idempotent) put({ resourceType: 'CLUSTER', name: CLUSTER_NAME, patternType: 'LITERAL' }, entriesFor(a, ['IDEMPOTENT_WRITE'], usage), false);
  }
  if (a.consumer) {
    // Read, Describe on topics; Read on groups (merged with the producer's topic entries).
    const filters = resourceFilters(a, patternType, true, usage);
    for (const f of filters.filter((x) => x.resourceType === 'TOPIC')) put(f, entriesFor(a, ['READ', 'DESCRIBE'], usage), true);
    for (const f of filters.filter((x) => x.resourceType === 'GROUP')) put(f, entriesFor(a, ['READ'], usage), true);
  }
  const out = [...byKey.values()];
  for (const { filter, entries } of out) {
    const resourceType = filter.resourceType as AclResourceType;
    // Kafka's ResourceType.supportedOperations, All being valid too; named as --operation takes them.
    const valid: readonly AclOperation[] = [...ACL_SUPPORTED_OPERATIONS[resourceType], 'ALL'];
    if (entries.some((e) => !valid.includes(e.operation))) {
      throw new UsageError(`ResourceType ${resourceType} only supports operations ${valid.map(operationName).join(',')}`, usage);
    }
  }
  return out;
}

/** The whole command line as Kafka 2.4's AclCommand reads it; every mistake is a UsageError before any broker is contacted. */
export function planAcls(a: AclArgs, usage: string): AclPlan {
  const action = checkArgs(a, usage);
  const patternType = patternTypeOf(a['resource-pattern-type'], usage);
  let resources: ResourceAcls[] = [];
  if (action === 'add') {
    if (patternType !== 'LITERAL' && patternType !== 'PREFIXED') throw new UsageError(`A '--resource-pattern-type' value of '${patternType}' is not valid when adding acls.`, usage);
    resources = resourceAcls(a, patternType, usage);
    if (resources.some((r) => r.entries.length === 0)) throw new UsageError('You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.', usage);
  } else if (action === 'remove') {
    resources = resourceAcls(a, patternType, usage);
  }
  return { action, resources, listFilters: resourceFilters(a, patternType, false, usage), listPrincipals: action === 'list' ? principalsOf(a.principal, usage) : [] };
}
