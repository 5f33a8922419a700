import { Admin, type TopicMetadata } from '@gregor/client';
import { ErrorCode, errorName, KafkaProtocolError } from '@gregor/common';
import { parseArgs } from 'node:util';
import { intOption, keyValues, parsed, requireOption } from '../args.js';
import { cliClient, COMMAND_CONFIG_HELP } from '../client-factory.js';
import { UsageError } from '../usage-error.js';

export const topicsUsage = `gregor topics <create|list|describe|delete> [options]

Topic administration over the Kafka protocol (CreateTopics, DeleteTopics, Metadata).

  create    --topic T [--partitions N] [--replication-factor N] [--config k=v ...] [--if-not-exists]
            waits until every partition has a leader
  list      topic names, one per line
  describe  [--topic T] partitions with leader, replicas and ISR
  delete    --topic T [--if-exists]

Options:
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
${COMMAND_CONFIG_HELP}
  --timeout-ms MS                how long the controller may take (default 30000)
  --help, -h`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  topic: { type: 'string', short: 't' },
  partitions: { type: 'string', short: 'p' },
  'replication-factor': { type: 'string', short: 'r' },
  config: { type: 'string', multiple: true },
  'if-not-exists': { type: 'boolean' },
  'if-exists': { type: 'boolean' },
  'timeout-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function topicsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), topicsUsage);
  if (values.help) {
    console.log(topicsUsage);
    return 0;
  }
  const [action, ...extra] = positionals;
  if (!action) throw new UsageError('missing action', topicsUsage);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, topicsUsage);
  if (!['create', 'list', 'describe', 'delete'].includes(action)) throw new UsageError(`unknown action "${action}"`, topicsUsage);
  const timeoutMs = intOption(values['timeout-ms'], 'timeout-ms', topicsUsage, 30_000, 1);
  // Validate every option before touching the network.
  const partitions = intOption(values.partitions, 'partitions', topicsUsage, -1, 1);
  const replicationFactor = intOption(values['replication-factor'], 'replication-factor', topicsUsage, -1, 1, 32767);
  const configs = keyValues(values.config, 'config', topicsUsage);
  if ((action === 'create' || action === 'delete') && !values.topic) throw new UsageError(`topics ${action} needs --topic`, topicsUsage);

  const client = cliClient(values['bootstrap-server'], values['command-config']);
  const admin = new Admin(client);
  try {
    switch (action) {
      case 'create': {
        const topic = requireOption(values.topic, 'topic', topicsUsage);
        const [result] = await admin.createTopics([{ name: topic, numPartitions: partitions, replicationFactor, configs }], { timeoutMs });
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
