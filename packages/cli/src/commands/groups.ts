import { parseArgs } from 'node:util';
import { Admin, type KafkaClient } from '@gregor/client';
import { ConfigError, ErrorCode, GregorError } from '@gregor/common';
import { describeGroup, endOffsetsFrom, listGroups as listZkGroups, type GroupDescription as ZkGroupDescription } from '@gregor/consumer';
import type { KafkaZkClient } from '@gregor/zookeeper';
import { actionOf, intOption, parsed } from '../args.js';
import { cliClient, COMMAND_CONFIG_HELP } from '../client-factory.js';
import { INACTIVE_STATES, isConsumerGroup, memberRows, offsetRows, stateRow, viewGroup } from '../groups/coordinator-groups.js';
import { formatGroupStates, formatMembers, formatOffsets, formatResetPlan, formatState } from '../groups/group-tables.js';
import { partitionsOfTopics, resetInputs, tpKey } from '../groups/partition-offsets.js';
import { parseDateTime, parseDuration, parseTopicArg, planReset, type PartitionRef, type PlannedOffset, type ResetSpec } from '../groups/reset-plan.js';
import { zkCommitted, zkDeleteGroup, zkGroupExists, zkMemberRows, zkMembers, zkOffsetRows, zkStateRow, zkWriteOffsets } from '../groups/zookeeper-groups.js';
import { UsageError } from '../usage-error.js';
import { clientFromZooKeeper, cliZooKeeper } from '../zookeeper-factory.js';

export const groupsUsage = `gregor groups <list|describe|delete|reset-offsets> [GROUP ...] [options]
gregor groups --list|--describe|--delete|--reset-offsets [--group G ...] [options]   (kafka-consumer-groups' flags)

Consumer groups of both kinds:
  - the group coordinator's (kcat -G, kafkajs, Java clients, gregor consume --group), over the Kafka
    protocol (ListGroups, DescribeGroups, OffsetFetch, OffsetCommit, DeleteGroups) — the default;
  - the ZooKeeper consumer connector's (gregor consumer-service, consume --group --zookeeper):
    with --zookeeper, read and written under /consumers/G.

  list           group names; --state [STATES]: with their states (filtered: --state stable,empty)
  describe       per partition: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID
                 HOST CLIENT-ID; --members [--verbose]: the members; --state: coordinator, strategy, state
  delete         the group (only while it has no members)
  reset-offsets  plans new committed offsets and prints them (NEW-OFFSET); changes them only with
                 --execute. Only for an inactive group (no members), as Kafka.
                 Scope: --all-topics (the topics it has offsets for) or --topic T / --topic T:0,1 (repeatable)
                 To: --to-earliest | --to-latest | --to-current | --to-offset N | --shift-by N
                     | --to-datetime YYYY-MM-DDTHH:mm:SS.sss[zone] (UTC without) | --by-duration PnDTnHnMnS

Options:
  --group G                      a group (repeatable; or as arguments after the action)
  --all-groups                   every group
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
${COMMAND_CONFIG_HELP}
  --zookeeper HOST:PORT[,...]    the ZooKeeper consumer connector's groups instead
  --execute / --dry-run          reset-offsets: apply the plan / only print it (the default)
  --format text|json             json: describe and list as JSON
  --help, -h`;

const OPTIONS = {
  group: { type: 'string', multiple: true },
  'all-groups': { type: 'boolean' },
  topic: { type: 'string', multiple: true },
  'all-topics': { type: 'boolean' },
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  zookeeper: { type: 'string' },
  list: { type: 'boolean' },
  describe: { type: 'boolean' },
  delete: { type: 'boolean' },
  'reset-offsets': { type: 'boolean' },
  members: { type: 'boolean' },
  offsets: { type: 'boolean' },
  state: { type: 'boolean' },
  'state-filter': { type: 'string' },
  verbose: { type: 'boolean' },
  'to-earliest': { type: 'boolean' },
  'to-latest': { type: 'boolean' },
  'to-current': { type: 'boolean' },
  'to-offset': { type: 'string' },
  'shift-by': { type: 'string' },
  'to-datetime': { type: 'string' },
  'by-duration': { type: 'string' },
  execute: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['list', 'describe', 'delete', 'reset-offsets'] as const;
const STATES = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'];

type Values = ReturnType<typeof parseGroupsArgs>['values'];

/**
 * Kafka's option shapes parseArgs does not take as they are: `--list --state stable,empty` (an optional
 * value: a following list of state names is the filter) and `--shift-by -5` (a negative value).
 */
export function preprocessGroupsArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  const isStateList = (s: string | undefined): s is string => s !== undefined && s.split(',').every((x) => STATES.some((k) => k.toLowerCase() === x.trim().toLowerCase()));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--state=')) out.push('--state', `--state-filter=${a.slice('--state='.length)}`);
    else if (a === '--state' && isStateList(argv[i + 1])) out.push('--state', `--state-filter=${argv[++i]}`);
    else if ((a === '--shift-by' || a === '--to-offset') && /^-\d+$/.test(argv[i + 1] ?? '')) out.push(`${a}=${argv[++i]}`);
    else out.push(a);
  }
  return out;
}

function parseGroupsArgs(argv: string[]) {
  return parsed(() => parseArgs({ args: preprocessGroupsArgs(argv), options: OPTIONS, strict: true, allowPositionals: true }), groupsUsage, OPTIONS);
}

/** The reset scenario: exactly one --to-* / --shift-by / --by-duration. */
export function resetSpecOf(values: Pick<Values, 'to-earliest' | 'to-latest' | 'to-current' | 'to-offset' | 'shift-by' | 'to-datetime' | 'by-duration'>, now = Date.now()): ResetSpec {
  const given: ResetSpec[] = [];
  if (values['to-earliest']) given.push({ kind: 'earliest' });
  if (values['to-latest']) given.push({ kind: 'latest' });
  if (values['to-current']) given.push({ kind: 'current' });
  if (values['to-offset'] !== undefined) given.push({ kind: 'offset', offset: intOption(values['to-offset'], 'to-offset', groupsUsage, 0, 0) });
  if (values['shift-by'] !== undefined) given.push({ kind: 'shift', by: intOption(values['shift-by'], 'shift-by', groupsUsage, 0, Number.MIN_SAFE_INTEGER) });
  if (values['to-datetime'] !== undefined) given.push({ kind: 'datetime', timestamp: parseDateTime(values['to-datetime']) });
  if (values['by-duration'] !== undefined) given.push({ kind: 'datetime', timestamp: now - parseDuration(values['by-duration']) });
  if (given.length !== 1) {
    throw new UsageError('--reset-offsets needs one of --to-earliest, --to-latest, --to-current, --to-offset, --shift-by, --to-datetime, --by-duration', groupsUsage);
  }
  return given[0]!;
}

/** Where the command's groups live, opened once per command. */
interface Session {
  admin: Admin;
  client: KafkaClient;
  zk: KafkaZkClient | null;
}

export async function groupsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseGroupsArgs(argv);
  if (values.help) {
    console.log(groupsUsage);
    return 0;
  }
  const { action, rest } = actionOf(positionals, values, ACTIONS, groupsUsage);
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`, groupsUsage);
  const groups = [...rest, ...(values.group ?? [])];
  if (action === 'list') {
    if (groups.length > 0) throw new UsageError(`list takes no group, got ${groups.join(' ')}`, groupsUsage);
  } else if (groups.length === 0 && !values['all-groups']) throw new UsageError(`${action} needs --group G (or --all-groups)`, groupsUsage);
  const describeViews = [values.members, values.offsets, values.state && action === 'describe'].filter(Boolean).length;
  if (describeViews > 1) throw new UsageError('describe takes at most one of --members, --offsets, --state', groupsUsage);
  if ((values.members || values.offsets || values.verbose) && action !== 'describe') throw new UsageError('--members, --offsets and --verbose apply to describe', groupsUsage);
  if (values.state && action !== 'describe' && action !== 'list') throw new UsageError('--state applies to list and describe', groupsUsage);
  if (values['state-filter'] !== undefined && action !== 'list') throw new UsageError('a --state filter applies to list', groupsUsage);
  if (values.topic !== undefined && action !== 'reset-offsets') throw new UsageError('--topic applies to reset-offsets', groupsUsage);
  let spec: ResetSpec | undefined;
  if (action === 'reset-offsets') {
    spec = resetSpecOf(values);
    if (values.execute && values['dry-run']) throw new UsageError('--reset-offsets takes one of --execute and --dry-run', groupsUsage);
    if ((values.topic === undefined) === !values['all-topics']) throw new UsageError('give the reset scope: --all-topics or --topic T (not both)', groupsUsage);
    for (const t of values.topic ?? []) parseTopicArg(t);
    if (!values.execute && !values['dry-run']) console.error('WARN: No action will be performed as the --execute option is missing. Add --dry-run to only plan without this warning.');
  } else {
    for (const flag of ['execute', 'dry-run', 'all-topics', 'to-earliest', 'to-latest', 'to-current', 'to-offset', 'shift-by', 'to-datetime', 'by-duration'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to reset-offsets`, groupsUsage);
    }
  }
  const stateFilter = values['state-filter']?.split(',').map((s) => STATES.find((k) => k.toLowerCase() === s.trim().toLowerCase())!);

  const session = await openSession(values.zookeeper, values['bootstrap-server'], values['command-config']);
  try {
    const kind = session.zk ? zookeeperKind(session.zk, session.admin, session.client) : coordinatorKind(session.admin);
    if (action === 'list') return await kind.list(values.state ?? false, stateFilter, format);
    const names = values['all-groups'] ? [...new Set([...(await kind.names()), ...groups])].sort() : [...new Set(groups)];
    let code = 0;
    for (const group of names) {
      let result: number;
      if (action === 'describe') result = await kind.describe(group, values.members ? 'members' : values.state ? 'state' : 'offsets', values.verbose ?? false, format);
      else if (action === 'delete') result = await kind.remove(group);
      else result = await kind.reset(group, spec!, values['all-topics'] ? 'all' : values.topic!.map(parseTopicArg), values.execute ?? false);
      code = Math.max(code, result);
    }
    return code;
  } finally {
    await session.client.close();
    await session.close?.();
  }
}

async function openSession(zookeeper: string | undefined, bootstrap: string | undefined, commandConfig: string | undefined): Promise<Session & { close?: () => Promise<void> }> {
  if (zookeeper === undefined) {
    const client = cliClient(bootstrap, commandConfig);
    return { client, admin: new Admin(client), zk: null };
  }
  const { zk, close } = await cliZooKeeper(zookeeper);
  const client = await clientFromZooKeeper(zk, bootstrap, commandConfig).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  if (!client) {
    await close();
    throw new ConfigError('no broker is registered in ZooKeeper and no --bootstrap-server was given: log end offsets cannot be read');
  }
  return { client, admin: new Admin(client), zk, close };
}

/** One kind of group: what each action does with it. Each returns an exit code (1 when a group failed). */
interface GroupKind {
  names(): Promise<string[]>;
  list(withState: boolean, filter: string[] | undefined, format: string): Promise<number>;
  describe(group: string, view: 'offsets' | 'members' | 'state', verbose: boolean, format: string): Promise<number>;
  remove(group: string): Promise<number>;
  reset(group: string, spec: ResetSpec, scope: 'all' | { topic: string; partitions: number[] | null }[], execute: boolean): Promise<number>;
}

function printError(message: string): void {
  console.error(`\nError: ${message}`);
}

/** The partitions a reset covers: --all-topics = what the group has offsets for; --topic T = all of T's partitions. */
async function scopePartitions(admin: Admin, scope: 'all' | { topic: string; partitions: number[] | null }[], committed: ReadonlyMap<string, number>): Promise<PartitionRef[]> {
  if (scope === 'all') {
    return [...committed.keys()].map((k) => {
      const [topic, p] = k.split('\u0000') as [string, string];
      return { topic, partition: Number(p) };
    });
  }
  const whole = await partitionsOfTopics(admin, scope.filter((s) => s.partitions === null).map((s) => s.topic));
  const out = new Map<string, PartitionRef>();
  for (const s of scope) for (const partition of s.partitions ?? whole.get(s.topic)!) out.set(tpKey(s.topic, partition), { topic: s.topic, partition });
  return [...out.values()];
}

function sortPartitions<T extends PartitionRef>(list: T[]): T[] {
  return list.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

async function planFor(admin: Admin, group: string, spec: ResetSpec, scope: Parameters<GroupKind['reset']>[2], committed: ReadonlyMap<string, number>): Promise<PlannedOffset[]> {
  const partitions = sortPartitions(await scopePartitions(admin, scope, committed));
  const inputs = await resetInputs(admin, partitions, committed, spec.kind === 'datetime' ? spec.timestamp : undefined);
  const { plan, warnings } = planReset(partitions, spec, inputs);
  for (const w of warnings) console.error(`WARN: ${w}`);
  if (partitions.length === 0) console.error(`Consumer group '${group}' has no offsets in the reset scope: nothing to reset.`);
  return plan;
}

/** What `groups --list` without --zookeeper adds on stderr: the other kind exists but is not listed. */
export const ZK_GROUPS_HINT = '(coordinator groups; add --zookeeper <connect> for ZooKeeper consumer connector groups)';

function coordinatorKind(admin: Admin): GroupKind {
  return {
    async names() {
      const listing = await admin.listGroups();
      for (const e of listing.errors) throw e.error;
      return listing.groups.filter((g) => isConsumerGroup(g.protocolType)).map((g) => g.groupId);
    },
    async list(withState, filter, format) {
      const listing = await admin.listGroups();
      const names = [...new Set(listing.groups.filter((g) => isConsumerGroup(g.protocolType)).map((g) => g.groupId))].sort();
      for (const e of listing.errors) console.error(`WARN: broker ${e.broker} did not list its groups (${e.error.message}); they are missing`);
      if (withState) {
        const described = names.length === 0 ? [] : await admin.describeGroups(names);
        const rows = described.map((d) => ({ group: d.groupId, state: d.state })).filter((r) => !filter || filter.includes(r.state));
        console.log(format === 'json' ? JSON.stringify(rows) : formatGroupStates(rows));
      } else if (format === 'json') console.log(JSON.stringify(names));
      else if (names.length > 0) console.log(names.join('\n'));
      // Without ZooKeeper the CLI cannot see the connector's groups (they live under /consumers, not on a
      // coordinator): say so on stderr, whatever the output is, so stdout stays the list scripts parse.
      console.error(ZK_GROUPS_HINT);
      return listing.errors.length > 0 ? 1 : 0;
    },
    async describe(group, view, verbose, format) {
      const g = await viewGroup(admin, group);
      if (!g.exists) {
        printError(`Consumer group '${group}' does not exist.`);
        return 1;
      }
      if (format === 'json') {
        console.log(JSON.stringify({ group, kind: 'coordinator', state: g.description.state, protocolType: g.description.protocolType, protocol: g.description.protocol, coordinator: g.description.coordinator, members: g.description.members, partitions: await offsetRows(admin, g) }));
        return 0;
      }
      if (g.description.state === 'Empty') console.error(`\nConsumer group '${group}' has no active members.`);
      else if (g.description.state === 'PreparingRebalance' || g.description.state === 'CompletingRebalance') console.error(`\nWarning: Consumer group '${group}' is rebalancing.`);
      if (view === 'state') console.log(formatState(await stateRow(admin, g)));
      else if (view === 'members') {
        const rows = memberRows(g);
        if (rows.length > 0) console.log(formatMembers(rows, verbose));
      } else {
        const rows = await offsetRows(admin, g);
        if (rows.length > 0) console.log(formatOffsets(rows));
      }
      return 0;
    },
    async remove(group) {
      const [result] = await admin.deleteGroups([group]);
      if (!result!.error) {
        console.log(`Deletion of requested consumer groups ('${group}') was successful.`);
        return 0;
      }
      printError('Deletion of some consumer groups failed:');
      const why = result!.error.code === ErrorCode.NON_EMPTY_GROUP ? 'The group is not empty.' : result!.error.code === ErrorCode.GROUP_ID_NOT_FOUND ? 'The group id does not exist.' : result!.error.message;
      console.error(`* Group '${group}' could not be deleted due to: ${why}`);
      return 1;
    },
    async reset(group, spec, scope, execute) {
      const g = await viewGroup(admin, group);
      if (!INACTIVE_STATES.has(g.description.state)) {
        printError(`Assignments can only be reset if the group '${group}' is inactive, but the current state is ${g.description.state}.`);
        return 1;
      }
      const committed = new Map(g.committed.map((c) => [tpKey(c.topic, c.partition), c.offset]));
      const plan = await planFor(admin, group, spec, scope, committed);
      if (execute && plan.length > 0) {
        try {
          await admin.resetOffsets(group, plan);
        } catch (error) {
          // Members joined between the state check and the commit: the coordinator refuses the commit.
          if (error instanceof GregorError && [ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION, ErrorCode.REBALANCE_IN_PROGRESS].includes(error.code as never)) {
            printError(`Assignments can only be reset if the group '${group}' is inactive: it got members while the offsets were being reset (${error.codeName}). Nothing was reset.`);
            return 1;
          }
          throw error;
        }
      }
      console.log(formatResetPlan(group, plan));
      return 0;
    },
  };
}

function zookeeperKind(zk: KafkaZkClient, admin: Admin, client: KafkaClient): GroupKind {
  const describeZk = (group: string): Promise<ZkGroupDescription | null> => describeGroup(zk, group, endOffsetsFrom(client));
  return {
    names: () => listZkGroups(zk),
    async list(withState, filter, format) {
      const names = await listZkGroups(zk);
      if (!withState) {
        if (format === 'json') console.log(JSON.stringify(names));
        else if (names.length > 0) console.log(names.join('\n'));
        return 0;
      }
      const rows = await Promise.all(names.map(async (group) => ({ group, state: (await zkMembers(zk, group)).length > 0 ? 'Stable' : 'Empty' })));
      const shown = rows.filter((r) => !filter || filter.includes(r.state));
      console.log(format === 'json' ? JSON.stringify(shown) : formatGroupStates(shown));
      return 0;
    },
    async describe(group, view, verbose, format) {
      const g = await describeZk(group);
      if (!g) {
        printError(`Consumer group '${group}' does not exist.`);
        return 1;
      }
      if (format === 'json') {
        console.log(JSON.stringify(g));
        return 0;
      }
      if (g.members.length === 0) console.error(`\nConsumer group '${group}' has no active members.`);
      if (view === 'state') console.log(formatState(zkStateRow(g)));
      else if (view === 'members') {
        const rows = zkMemberRows(g);
        if (rows.length > 0) console.log(formatMembers(rows, verbose));
      } else {
        const rows = zkOffsetRows(g);
        if (rows.length > 0) console.log(formatOffsets(rows));
      }
      return 0;
    },
    async remove(group) {
      if (!(await zkGroupExists(zk, group))) {
        printError(`Delete for group '${group}' failed because group does not exist.`);
        return 1;
      }
      const members = await zkMembers(zk, group);
      if (members.length > 0) {
        printError(`Delete for group '${group}' failed because its consumers are still active (${members.join(', ')}).`);
        return 1;
      }
      await zkDeleteGroup(zk, group);
      console.log(`Deleted all consumer group information for group '${group}' in zookeeper.`);
      return 0;
    },
    async reset(group, spec, scope, execute) {
      const members = await zkMembers(zk, group);
      if (members.length > 0) {
        printError(`Assignments can only be reset if the group '${group}' is inactive, but consumers ${members.join(', ')} are registered under /consumers/${group}/ids.`);
        return 1;
      }
      const committed = await zkCommitted(zk, group);
      const plan = await planFor(admin, group, spec, scope, committed);
      if (execute) await zkWriteOffsets(zk, group, plan);
      console.log(formatResetPlan(group, plan));
      return 0;
    },
  };
}
