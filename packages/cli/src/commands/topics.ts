import { Admin, type TopicMetadata } from '@gregor/client';
import { ErrorCode, errorName, KafkaProtocolError } from '@gregor/common';
import { parseArgs } from 'node:util';
import { actionOf, intOption, keyValues, parsed, requireOption } from '../args.js';
import { cliClient } from '../client-factory.js';
import { UsageError } from '../usage-error.js';

export const topicsUsage = `gregor topics <create|list|describe|alter|delete> [options]
gregor topics --create|--list|--describe|--alter|--delete [options]     (kafka-topics.sh's flags)

Topic administration over the Kafka protocol (CreateTopics, CreatePartitions, DeleteTopics, Metadata).

  create    --topic T [--partitions N] [--replication-factor N] [--config k=v ...] [--if-not-exists]
            or --replica-assignment 1:2,2:3 (partitions by comma, replicas by colon)
            waits until every partition has a leader
  list      topic names, one per line
  describe  [--topic T] partitions with leader, replicas and ISR
  alter     --topic T --partitions N   adds partitions up to N (configs: \`gregor configs --alter\`)
  delete    --topic T [--if-exists]

Options:
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
  --timeout-ms MS                how long the controller may take (default 30000)
  --help, -h`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  topic: { type: 'string', short: 't' },
  partitions: { type: 'string', short: 'p' },
  'replication-factor': { type: 'string', short: 'r' },
  config: { type: 'string', multiple: true },
  'replica-assignment': { type: 'string' },
  'if-not-exists': { type: 'boolean' },
  'if-exists': { type: 'boolean' },
  'timeout-ms': { type: 'string' },
  create: { type: 'boolean' },
  list: { type: 'boolean' },
  describe: { type: 'boolean' },
  alter: { type: 'boolean' },
  delete: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['create', 'list', 'describe', 'alter', 'delete'] as const;

export async function topicsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), topicsUsage, OPTIONS);
  if (values.help) {
    console.log(topicsUsage);
    return 0;
  }
  const { action, rest: extra } = actionOf(positionals, values, ACTIONS, topicsUsage);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, topicsUsage);
  const timeoutMs = intOption(values['timeout-ms'], 'timeout-ms', topicsUsage, 30_000, 1);
  // Validate every option before touching the network.
  const partitions = intOption(values.partitions, 'partitions', topicsUsage, -1, 1);
  const replicationFactor = intOption(values['replication-factor'], 'replication-factor', topicsUsage, -1, 1, 32767);
  const configs = keyValues(values.config, 'config', topicsUsage);
  const assignment = values['replica-assignment'] === undefined ? undefined : parseReplicaAssignment(values['replica-assignment']);
  if (assignment && (partitions !== -1 || replicationFactor !== -1)) throw new UsageError('--replica-assignment excludes --partitions and --replication-factor', topicsUsage);
  if (action !== 'list' && action !== 'describe' && !values.topic) throw new UsageError(`topics ${action} needs --topic`, topicsUsage);
  if (action === 'alter') {
    if (values.config !== undefined) throw new UsageError('topic configs are altered with `gregor configs --alter --entity-type topics --entity-name T --add-config k=v`', topicsUsage);
    if (partitions === -1) throw new UsageError('topics alter needs --partitions (the new total)', topicsUsage);
  }

  const client = cliClient(values['bootstrap-server']);
  const admin = new Admin(client);
  try {
    switch (action) {
      case 'create': {
        const topic = requireOption(values.topic, 'topic', topicsUsage);
        const [result] = await admin.createTopics([{ name: topic, numPartitions: partitions, replicationFactor, configs, ...(assignment ? { replicaAssignment: assignment } : {}) }], { timeoutMs });
        if (result!.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS && values['if-not-exists']) return 0;
        if (result!.error) throw result!.error;
        await admin.waitForLeaders([topic], timeoutMs);
        console.log(`Created topic ${topic}.`);
        return 0;
      }
      case 'list':
        for (const name of await admin.listTopics()) console.log(name);
        return 0;
      case 'describe': {
        const topics = await admin.describeTopics(values.topic ? [values.topic] : undefined);
        for (const t of topics) {
          if (t.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(t.errorCode, `topic ${t.name}: ${errorName(t.errorCode)}`);
          console.log(describeTopic(t));
        }
        return 0;
      }
      case 'alter': {
        const topic = requireOption(values.topic, 'topic', topicsUsage);
        const [result] = await admin.createPartitions([{ topic, count: partitions }], { timeoutMs });
        if (result!.error) throw result!.error;
        await admin.waitForLeaders([topic], timeoutMs);
        console.log(`Topic ${topic} now has ${partitions} partitions.`);
        return 0;
      }
      default: {
        const topic = requireOption(values.topic, 'topic', topicsUsage);
        const [result] = await admin.deleteTopics([topic], { timeoutMs });
        if (result!.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && values['if-exists']) return 0;
        if (result!.error) throw result!.error;
        console.log(`Deleted topic ${topic}.`);
        return 0;
      }
    }
  } finally {
    await client.close();
  }
}

/** kafka-topics.sh --replica-assignment: "1:2,2:3" = partition 0 on brokers 1,2, partition 1 on 2,3. */
export function parseReplicaAssignment(text: string): Map<number, number[]> {
  const out = new Map<number, number[]>();
  text.split(',').forEach((part, partition) => {
    const ids = part.split(':').map((s) => s.trim());
    if (ids.some((id) => !/^\d+$/.test(id))) throw new UsageError(`--replica-assignment: partition ${partition} has "${part}"; broker ids are integers`, topicsUsage);
    const replicas = ids.map(Number);
    if (new Set(replicas).size !== replicas.length) throw new UsageError(`--replica-assignment: partition ${partition} names a broker twice ("${part}")`, topicsUsage);
    out.set(partition, replicas);
  });
  return out;
}

/** kafka-topics.sh --describe layout: a topic line, then one tab-indented line per partition. */
export function describeTopic(t: TopicMetadata): string {
  const rf = t.partitions[0]?.replicas.length ?? 0;
  const lines = [`Topic: ${t.name}\tPartitionCount: ${t.partitions.length}\tReplicationFactor: ${rf}`];
  for (const p of t.partitions) {
    const offline = p.offlineReplicas.length > 0 ? `\tOffline: ${p.offlineReplicas.join(',')}` : '';
    lines.push(`\tTopic: ${t.name}\tPartition: ${p.partition}\tLeader: ${p.leader < 0 ? 'none' : p.leader}\tReplicas: ${p.replicas.join(',')}\tIsr: ${p.isr.join(',')}${offline}`);
  }
  return lines.join('\n');
}
