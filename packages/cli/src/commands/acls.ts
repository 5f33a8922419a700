import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { ANY_ACL_BINDING, type AccessControlEntry, type AclBinding, type AclBindingFilter, type ResourcePatternFilter } from '@gregor/client';
import type { GregorError } from '@gregor/common';
import { parsed } from '../args.js';
import { COMMAND_CONFIG_HELP } from '../client-factory.js';
import { UsageError } from '../usage-error.js';
import { planAcls, type AclPlan, type ResourceAcls } from './acls-plan.js';
import { openAclService, type AclService } from './acls-service.js';
import { aclTarget } from './acls-target.js';

export const aclsUsage = `gregor acls (--add | --remove | --list) [resources] [principals] [options]

Adds, removes and lists ACLs (kafka-acls). Either through the brokers' CreateAcls, DeleteAcls and
DescribeAcls (--bootstrap-server; the brokers need authorizer.class.name and the caller Alter/Describe
on the cluster, e.g. a super user), or in ZooKeeper directly (--authorizer-properties
zookeeper.connect=HOST:PORT: Kafka's AclAuthorizer runs in this process; the brokers' authorizers
follow its change notifications).

Resources (repeatable; * = all of that kind):
  --topic T  --group G  --cluster  --transactional-id X  --delegation-token D
  --resource-pattern-type P      literal (default) or prefixed; for --list/--remove also any
                                 (any pattern type, this exact name) or match (every ACL that applies)
Entries:
  --allow-principal P            principalType:name, e.g. User:alice (User:* = every user); repeatable
  --deny-principal P             the same; deny wins over allow
  --allow-host H, --deny-host H  hosts of the principals above (default *)
  --operation OP                 Read, Write, Create, Delete, Alter, Describe, ClusterAction,
                                 DescribeConfigs, AlterConfigs, IdempotentWrite, All (default All)
  --producer                     Write, Describe, Create on the topics (Write, Describe on transactional ids)
  --idempotent                   with --producer: also IdempotentWrite on the cluster
  --consumer                     Read, Describe on the topics and Read on the groups (needs --group)
  --principal P                  --list: only this principal's ACLs (repeatable)
  --force                        --remove without asking (required when stdin is not a terminal)

Where (one of the two):
  --bootstrap-server HOST:PORT   a broker to start from
${COMMAND_CONFIG_HELP}
  --authorizer-properties K=V    the authorizer's properties (repeatable): zookeeper.connect (required),
                                 zookeeper.session.timeout.ms, zookeeper.connection.timeout.ms
  --authorizer CLASS             kafka.security.auth.SimpleAclAuthorizer (default) or
                                 kafka.security.authorizer.AclAuthorizer

Options:
  --help, -h`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  add: { type: 'boolean' },
  remove: { type: 'boolean' },
  list: { type: 'boolean' },
  topic: { type: 'string', multiple: true },
  group: { type: 'string', multiple: true },
  cluster: { type: 'boolean' },
  'transactional-id': { type: 'string', multiple: true },
  'delegation-token': { type: 'string', multiple: true },
  'resource-pattern-type': { type: 'string' },
  'allow-principal': { type: 'string', multiple: true },
  'deny-principal': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'deny-host': { type: 'string', multiple: true },
  operation: { type: 'string', multiple: true },
  producer: { type: 'boolean' },
  consumer: { type: 'boolean' },
  idempotent: { type: 'boolean' },
  principal: { type: 'string', multiple: true },
  force: { type: 'boolean' },
  authorizer: { type: 'string' },
  'authorizer-properties': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/** ResourcePattern(Filter).toString of Kafka's client. */
export function resourceText(p: ResourcePatternFilter): string {
  return `ResourcePattern(resourceType=${p.resourceType}, name=${p.name ?? '<any>'}, patternType=${p.patternType})`;
}

/** AccessControlEntry.toString of Kafka's client. */
export function entryText(e: AccessControlEntry): string {
  return `(principal=${e.principal}, host=${e.host}, operation=${e.operation}, permissionType=${e.permissionType})`;
}

/** AclCommand's block: the header, then one tab-indented entry a line (with Kafka's stray spaces). */
function block(header: string, entries: readonly AccessControlEntry[]): string {
  return `${header} \n ${entries.map((e) => `\t${entryText(e)}`).join('\n')} \n`;
}

export async function aclsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), aclsUsage, OPTIONS);
  if (values.help) {
    console.log(aclsUsage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, aclsUsage);
  const target = aclTarget(values, aclsUsage);
  const plan = planAcls(values, aclsUsage);
  if (plan.action === 'remove' && !values.force && process.stdin.isTTY !== true) {
    throw new UsageError('--remove asks for confirmation and stdin is not a terminal: give --force to remove without asking', aclsUsage);
  }
  const service = await openAclService(target);
  try {
    if (plan.action === 'add' && !(await addAcls(service, plan))) return 1;
    if (plan.action === 'remove' && !(await removeAcls(service, plan, values.force === true))) return 1;
    await listAcls(service, plan);
    return 0;
  } finally {
    await service.close();
  }
}

function printError(what: string, error: GregorError): void {
  console.error(`Error while executing ACL command: ${what}: ${error.message} [${error.codeName}]`);
}

/** CreateAcls per resource, as AclCommand: stops at the first resource the broker refuses. */
async function addAcls(acls: AclService, plan: AclPlan): Promise<boolean> {
  for (const { filter, entries } of plan.resources) {
    console.log(block(`Adding ACLs for resource \`${resourceText(filter)}\`:`, entries));
    const pattern = filter as AclBinding['pattern'];
    const results = await acls.createAcls(entries.map((entry) => ({ pattern, entry })));
    const failed = results.filter((r) => r.error);
    for (const r of failed) printError(`${resourceText(r.binding.pattern)} ${entryText(r.binding.entry)}`, r.error!);
    if (failed.length > 0) return false;
  }
  return true;
}

/** DeleteAcls per resource filter, after a y/n question unless --force; no entries = all ACLs of the filter. */
async function removeAcls(acls: AclService, plan: AclPlan, force: boolean): Promise<boolean> {
  for (const { filter, entries } of plan.resources) {
    if (!force && !(await confirm(removeQuestion({ filter, entries })))) continue;
    const filters: AclBindingFilter[] =
      entries.length === 0
        ? [{ pattern: filter, entry: ANY_ACL_BINDING.entry }]
        : entries.map((entry) => ({ pattern: filter, entry }));
    let ok = true;
    for (const r of await acls.deleteAcls(filters)) {
      if (r.error) printError(resourceText(r.filter.pattern), r.error);
      for (const d of r.deleted) if (d.error) printError(`${resourceText(d.binding.pattern)} ${entryText(d.binding.entry)}`, d.error);
      ok &&= !r.error && r.deleted.every((d) => !d.error);
    }
    if (!ok) return false;
  }
  return true;
}

function removeQuestion({ filter, entries }: ResourceAcls): string {
  if (entries.length === 0) return `Are you sure you want to delete all ACLs for resource filter \`${resourceText(filter)}\`? (y/n)`;
  return `Are you sure you want to remove ACLs: \n ${entries.map((e) => `\t${entryText(e)}`).join('\n')} \n from resource filter \`${resourceText(filter)}\`? (y/n)`;
}

/** Kafka's confirmAction on the terminal: only y (any case) goes ahead. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(`${question}\n`)).trim().toLowerCase() === 'y';
  } finally {
    rl.close();
  }
}

/** DescribeAcls per filter (all ACLs without one), grouped by resource pattern; --principal narrows to those principals. */
async function listAcls(acls: AclService, plan: AclPlan): Promise<void> {
  const filters: (ResourcePatternFilter | null)[] = plan.listFilters.length > 0 ? plan.listFilters : [null];
  const byResource = new Map<string, { pattern: AclBinding['pattern']; entries: Map<string, AccessControlEntry> }>();
  for (const filter of filters) {
    const bindings = await acls.describeAcls(filter ? { pattern: filter, entry: ANY_ACL_BINDING.entry } : undefined);
    for (const { pattern, entry } of bindings) {
      const key = `${pattern.resourceType}\u0000${pattern.patternType}\u0000${pattern.name}`;
      const r = byResource.get(key) ?? { pattern, entries: new Map<string, AccessControlEntry>() };
      r.entries.set(entryText(entry), entry);
      byResource.set(key, r);
    }
  }
  const resources = [...byResource.values()].sort(
    (a, b) => a.pattern.resourceType.localeCompare(b.pattern.resourceType) || a.pattern.patternType.localeCompare(b.pattern.patternType) || a.pattern.name.localeCompare(b.pattern.name),
  );
  const print = (principal: string | null) => {
    for (const r of resources) {
      const entries = [...r.entries.values()].filter((e) => principal === null || e.principal === principal);
      if (entries.length > 0) console.log(block(`Current ACLs for resource \`${resourceText(r.pattern)}\`:`, entries));
    }
  };
  if (plan.listPrincipals.length === 0) return print(null);
  for (const principal of plan.listPrincipals) {
    console.log(`ACLs for principal \`${principal}\``);
    print(principal);
  }
}
