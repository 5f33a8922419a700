import { parseArgs } from 'node:util';
import { describeGroup, endOffsetsFrom, listGroups, type GroupDescription } from '@gregor/consumer';
import { parsed } from '../args.js';
import { UsageError } from '../usage-error.js';
import { clientFromZooKeeper, cliZooKeeper } from '../zookeeper-factory.js';

export const groupsUsage = `gregor groups <list|describe G> [options]

Consumer groups of the ZooKeeper consumer connector (like kafka-consumer-groups --zookeeper):
  list          group names, one per line
  describe G    members, then per partition: committed offset, log-end offset, lag and owner

Options:
  --zookeeper HOST:PORT[,...]    ZooKeeper of the cluster (default 127.0.0.1:2181)
  --bootstrap-server HOST:PORT   where to read log-end offsets (default: the brokers registered in ZooKeeper)
  --format text|json
  --help, -h`;

const OPTIONS = {
  zookeeper: { type: 'string' },
  'bootstrap-server': { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function groupsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), groupsUsage, OPTIONS);
  if (values.help) {
    console.log(groupsUsage);
    return 0;
  }
  const [action, ...rest] = positionals;
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`, groupsUsage);
  if (action === 'list') {
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, groupsUsage);
  } else if (action === 'describe') {
    if (rest.length !== 1) throw new UsageError('groups describe needs exactly one group name', groupsUsage);
  } else throw new UsageError(action === undefined ? 'missing action' : `unknown action "${action}"`, groupsUsage);

  const { zk, close } = await cliZooKeeper(values.zookeeper);
  try {
    if (action === 'list') {
      const groups = await listGroups(zk);
      console.log(format === 'json' ? JSON.stringify(groups) : groups.join('\n'));
      return 0;
    }
    const client = await clientFromZooKeeper(zk, values['bootstrap-server']);
    try {
      const group = await describeGroup(zk, rest[0]!, client ? endOffsetsFrom(client) : undefined);
      if (!group) {
        console.error(`gregor groups: consumer group "${rest[0]}" does not exist`);
        return 1;
      }
      console.log(format === 'json' ? JSON.stringify(group) : formatGroup(group));
      return 0;
    } finally {
      await client?.close();
    }
  } finally {
    await close();
  }
}

/** kafka-consumer-groups layout: the members, then one aligned row per partition. */
export function formatGroup(g: GroupDescription): string {
  const lines = [`Group: ${g.group}\tMembers: ${g.members.length}`];
  for (const m of g.members) lines.push(`\tMember: ${m.consumerId}\tPattern: ${m.pattern}\tSubscription: ${JSON.stringify(m.subscription)}`);
  const dash = (v: number | string | null) => (v === null ? '-' : String(v));
  const rows = [['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'OWNER'], ...g.partitions.map((p) => [p.topic, String(p.partition), dash(p.committedOffset), dash(p.logEndOffset), dash(p.lag), dash(p.owner)])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  lines.push('', ...rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')));
  return lines.join('\n');
}
