import { parseArgs } from 'node:util';
import { Admin, type OngoingReassignment } from '@gregor/client';
import { ConfigError, ErrorCode, errorName, KafkaProtocolError, sleep, TimeoutError } from '@gregor/common';
import { assignReplicasToBrokers } from '@gregor/controller';
import { actionOf, intOption, parsed, readInputFile, requireOption } from '../args.js';
import { cliClient, COMMAND_CONFIG_HELP } from '../client-factory.js';
import { Progress } from '../progress.js';
import { formatPlan, parseBrokerList, parseReassignmentPlan, parseTopicsToMove, type PlanEntry } from '../reassign/plan-json.js';
import { UsageError } from '../usage-error.js';

export const reassignUsage = `gregor reassign <generate|execute|verify|cancel|list> [options]
gregor reassign --generate|--execute|--verify|--cancel|--list [options]   (kafka-reassign-partitions' flags)

Moves partition replicas between brokers with Kafka's plan JSON
({"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[2,3],"log_dirs":["any","any"]}]}),
through AlterPartitionReassignments / ListPartitionReassignments (KIP-455) at the controller.

  generate   --topics-to-move-json-file F ({"topics":[{"topic":"t"}],"version":1}) --broker-list 1,2,3
             prints the current assignment and a proposed one (Kafka's rack-unaware assignment)
  execute    --reassignment-json-file F   starts the moves; prints the current assignment to keep for
             a rollback. --additional: while other reassignments run. --wait: until done.
  verify     --reassignment-json-file F   each partition: complete, still in progress, or different
             --wait: until none of them is in progress
  cancel     --reassignment-json-file F   cancels those still moving (back to their original replicas)
  list       the reassignments in progress

Options:
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
${COMMAND_CONFIG_HELP}
  --timeout-ms MS                --wait bound (default 600000)
  --help, -h
On a terminal, waiting shows the progress (partitions done, replicas still being added).`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  'topics-to-move-json-file': { type: 'string' },
  'broker-list': { type: 'string' },
  'reassignment-json-file': { type: 'string' },
  additional: { type: 'boolean' },
  wait: { type: 'boolean' },
  'timeout-ms': { type: 'string' },
  generate: { type: 'boolean' },
  execute: { type: 'boolean' },
  verify: { type: 'boolean' },
  cancel: { type: 'boolean' },
  list: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['generate', 'execute', 'verify', 'cancel', 'list'] as const;

const tp = (e: { topic: string; partition: number }): string => `${e.topic}-${e.partition}`;

export async function reassignCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), reassignUsage, OPTIONS);
  if (values.help) {
    console.log(reassignUsage);
    return 0;
  }
  const { action, rest } = actionOf(positionals, values, ACTIONS, reassignUsage);
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, reassignUsage);
  const allowed: Record<(typeof ACTIONS)[number], readonly string[]> = {
    generate: ['topics-to-move-json-file', 'broker-list'],
    execute: ['reassignment-json-file', 'additional', 'wait', 'timeout-ms'],
    verify: ['reassignment-json-file', 'wait', 'timeout-ms'],
    cancel: ['reassignment-json-file'],
    list: [],
  };
  for (const name of ['topics-to-move-json-file', 'broker-list', 'reassignment-json-file', 'additional', 'wait', 'timeout-ms'] as const) {
    if (values[name] !== undefined && !allowed[action].includes(name)) throw new UsageError(`Option "--${name}" can't be used with action "--${action}"`, reassignUsage);
  }
  const timeoutMs = intOption(values['timeout-ms'], 'timeout-ms', reassignUsage, 600_000, 1);
  let plan: PlanEntry[] = [];
  let topics: string[] = [];
  let brokers: number[] = [];
  if (action === 'generate') {
    const file = requireOption(values['topics-to-move-json-file'], 'topics-to-move-json-file', reassignUsage);
    topics = parseTopicsToMove(readInputFile(file, 'topics-to-move-json-file', reassignUsage), file);
    brokers = parseBrokerList(requireOption(values['broker-list'], 'broker-list', reassignUsage));
  } else if (action !== 'list') {
    const file = requireOption(values['reassignment-json-file'], 'reassignment-json-file', reassignUsage);
    plan = parseReassignmentPlan(readInputFile(file, 'reassignment-json-file', reassignUsage), file);
  }

  const client = cliClient(values['bootstrap-server'], values['command-config']);
  const admin = new Admin(client);
  try {
    switch (action) {
      case 'generate':
        return await generate(admin, topics, brokers);
      case 'execute': {
        const code = await execute(admin, plan, values.additional ?? false);
        return code === 0 && values.wait ? await waitDone(admin, plan, timeoutMs) : code;
      }
      case 'verify':
        if (values.wait) return await waitDone(admin, plan, timeoutMs);
        console.log(statusText(await verifyStates(admin, plan)));
        return 0;
      case 'cancel':
        return await cancel(admin, plan);
      default:
        console.log(ongoingText(await admin.listPartitionReassignments()));
        return 0;
    }
  } finally {
    await client.close();
  }
}

/** Each topic's partitions with their current replicas (metadata); an unknown topic is an error. */
async function topicReplicas(admin: Admin, topics: readonly string[]): Promise<Map<string, { partition: number; replicas: number[] }[]>> {
  const out = new Map<string, { partition: number; replicas: number[] }[]>();
  for (const t of await admin.describeTopics([...new Set(topics)])) {
    if (t.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(t.errorCode, `topic ${t.name}: ${errorName(t.errorCode)}`);
    out.set(t.name, t.partitions.map((p) => ({ partition: p.partition, replicas: p.replicas })));
  }
  return out;
}

async function generate(admin: Admin, topics: string[], brokerList: number[]): Promise<number> {
  const current = await topicReplicas(admin, topics);
  const live = new Set((await admin.describeCluster()).brokers.map((b) => b.nodeId));
  // As Kafka: brokers of the list that are not in the cluster are left out of the proposal.
  const brokers = brokerList.filter((b) => live.has(b));
  const missing = brokerList.filter((b) => !live.has(b));
  if (missing.length > 0) console.error(`WARN: brokers ${missing.join(',')} are not in the cluster and get no replicas`);
  const currentPlan: PlanEntry[] = [];
  const proposed: PlanEntry[] = [];
  for (const topic of topics) {
    const partitions = current.get(topic)!;
    for (const p of partitions) currentPlan.push({ topic, ...p });
    const rf = partitions[0]?.replicas.length ?? 0;
    if (rf > brokers.length) throw new ConfigError(`topic ${topic} has replication factor ${rf}, more than the ${brokers.length} live broker(s) of --broker-list`);
    for (const [partition, replicas] of assignReplicasToBrokers(brokers, partitions.length, rf)) proposed.push({ topic, partition, replicas });
  }
  console.log(`Current partition replica assignment\n${formatPlan(currentPlan)}\n`);
  console.log(`Proposed partition reassignment configuration\n${formatPlan(proposed)}`);
  return 0;
}

async function execute(admin: Admin, plan: PlanEntry[], additional: boolean): Promise<number> {
  if (!additional && (await admin.listPartitionReassignments()).length > 0) {
    throw new ConfigError('Cannot execute because there is an existing partition assignment. Use --additional to override this and create a new partition assignment in addition to the existing one.');
  }
  const live = new Set((await admin.describeCluster()).brokers.map((b) => b.nodeId));
  const unknown = [...new Set(plan.flatMap((e) => e.replicas))].filter((b) => !live.has(b));
  if (unknown.length > 0) throw new ConfigError(`Unknown broker id ${unknown[0]}`);
  const byTopic = await topicReplicas(admin, plan.map((e) => e.topic));
  const current = new Map([...byTopic].flatMap(([topic, ps]) => ps.map((p) => [tp({ topic, partition: p.partition }), p.replicas] as const)));
  const missing = plan.filter((e) => !current.has(tp(e)));
  if (missing.length > 0) throw new ConfigError(`unknown partition(s): ${missing.map(tp).join(',')}`);
  console.log(`Current partition replica assignment\n\n${formatPlan(plan.map((e) => ({ ...e, replicas: current.get(tp(e))! })))}\n\nSave this to use as the --reassignment-json-file option during rollback`);
  const results = await admin.alterPartitionReassignments(plan.map((e) => ({ topic: e.topic, partition: e.partition, replicas: e.replicas })));
  const failed = results.filter((r) => r.error);
  if (failed.length > 0) {
    console.error(`Error reassigning partition(s):\n${failed.map((r) => `${tp(r)}: ${r.error!.message}`).join('\n')}`);
    return 1;
  }
  const names = [...plan].sort(byPartition).map(tp);
  console.log(`Successfully started partition reassignment${names.length === 1 ? '' : 's'} for ${names.join(',')}`);
  return 0;
}

function byPartition(a: { topic: string; partition: number }, b: { topic: string; partition: number }): number {
  return a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1;
}

interface PartitionState {
  entry: PlanEntry;
  /** Still moving: the replica set while moving, and the replicas being added. */
  ongoing: OngoingReassignment | null;
  /** Replicas now (metadata) when not moving; [] for an unknown partition. */
  current: number[];
}

/** Kafka's findPartitionReassignmentStates: moving per ListPartitionReassignments, else compared with metadata. */
async function verifyStates(admin: Admin, plan: PlanEntry[]): Promise<PartitionState[]> {
  const ongoing = new Map((await admin.listPartitionReassignments()).map((o) => [tp(o), o]));
  const described = await admin.describeTopics([...new Set(plan.map((e) => e.topic))]);
  const replicas = new Map(described.flatMap((t) => t.partitions.map((p) => [tp({ topic: t.name, partition: p.partition }), p.replicas] as const)));
  return [...plan].sort(byPartition).map((entry) => ({ entry, ongoing: ongoing.get(tp(entry)) ?? null, current: replicas.get(tp(entry)) ?? [] }));
}

function statusText(states: PartitionState[]): string {
  const lines = ['Status of partition reassignment:'];
  for (const s of states) {
    if (s.ongoing) lines.push(`Reassignment of partition ${tp(s.entry)} is still in progress.`);
    else if (s.current.join(',') === s.entry.replicas.join(',')) lines.push(`Reassignment of partition ${tp(s.entry)} is complete.`);
    else lines.push(`There is no active reassignment of partition ${tp(s.entry)}, but replica set is ${s.current.join(',')} rather than ${s.entry.replicas.join(',')}.`);
  }
  return lines.join('\n');
}

/** Polls until no partition of the plan is moving; the final status is printed, exit 1 if one ended elsewhere. */
async function waitDone(admin: Admin, plan: PlanEntry[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let states = await verifyStates(admin, plan);
  const progress = new Progress().start(() => {
    const moving = states.filter((s) => s.ongoing);
    const adding = moving.flatMap((s) => s.ongoing!.addingReplicas.map((r) => `${tp(s.entry)}→${r}`));
    return `reassignment: ${states.length - moving.length}/${states.length} partitions done${adding.length > 0 ? `, adding ${adding.slice(0, 4).join(' ')}${adding.length > 4 ? ' …' : ''}` : ''} (${progress.elapsed})`;
  });
  try {
    while (states.some((s) => s.ongoing)) {
      if (Date.now() >= deadline) {
        progress.done();
        console.log(statusText(states));
        throw new TimeoutError(`reassignment not complete after ${timeoutMs} ms; it goes on (\`gregor reassign --verify\` follows it)`);
      }
      await sleep(500);
      states = await verifyStates(admin, plan);
    }
  } finally {
    progress.done();
  }
  console.log(statusText(states));
  return states.every((s) => s.current.join(',') === s.entry.replicas.join(',')) ? 0 : 1;
}

async function cancel(admin: Admin, plan: PlanEntry[]): Promise<number> {
  const moving = (await admin.listPartitionReassignments(plan.map((e) => ({ topic: e.topic, partition: e.partition })))).filter((o) => o.addingReplicas.length > 0 || o.removingReplicas.length > 0);
  if (moving.length === 0) {
    console.log('None of the specified partition reassignments are active.');
    return 0;
  }
  const results = await admin.alterPartitionReassignments(moving.map((o) => ({ topic: o.topic, partition: o.partition, replicas: null })));
  const failed = results.filter((r) => r.error && r.error.code !== ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
  if (failed.length > 0) {
    console.error(`Error cancelling partition reassignment${failed.length === 1 ? '' : 's'} for:\n${failed.map((r) => `${tp(r)}: ${r.error!.message}`).join('\n')}`);
    return 1;
  }
  const names = moving.sort(byPartition).map(tp);
  console.log(`Successfully cancelled partition reassignment${names.length === 1 ? '' : 's'} for: ${names.join(',')}`);
  return 0;
}

/** Kafka's curReassignmentsToString. */
export function ongoingText(ongoing: readonly OngoingReassignment[]): string {
  if (ongoing.length === 0) return 'No partition reassignments found.';
  const lines = ongoing.map((o) => `${tp(o)}: replicas: ${o.replicas.join(',')}.${o.addingReplicas.length > 0 ? ` adding: ${o.addingReplicas.join(',')}.` : ''}${o.removingReplicas.length > 0 ? ` removing: ${o.removingReplicas.join(',')}.` : ''}`);
  return `Current partition reassignments:\n${lines.join('\n')}`;
}
