import { parseArgs } from 'node:util';
import { Admin, type TopicPartitionRef } from '@gregor/client';
import { ErrorCode } from '@gregor/common';
import { intOption, parsed, readInputFile } from '../args.js';
import { cliClient, COMMAND_CONFIG_HELP } from '../client-factory.js';
import { UsageError } from '../usage-error.js';

export const electLeadersUsage = `gregor elect-leaders --election-type preferred|unclean (--topic T --partition P | --all-topic-partitions | --path-to-json-file F) [options]

Elects partition leaders through the controller (ElectLeaders, KIP-460; like kafka-leader-election):
  preferred  each partition's first replica, when it is alive and in sync and not leading already
  unclean    for a partition without a leader: a live replica even out of sync (records may be lost)

The JSON file: {"partitions":[{"topic":"foo","partition":1},{"topic":"bar","partition":2}]}

Options:
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
${COMMAND_CONFIG_HELP}
  --timeout-ms MS                how long the controller may take (default 60000)
  --help, -h`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  'election-type': { type: 'string' },
  topic: { type: 'string' },
  partition: { type: 'string' },
  'all-topic-partitions': { type: 'boolean' },
  'path-to-json-file': { type: 'string' },
  'timeout-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** kafka-leader-election's JSON: partitions listed once each. */
export function parseElectionJson(text: string, what: string): TopicPartitionRef[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what}: not valid JSON (${(error as Error).message})`);
  }
  const partitions = (json as { partitions?: unknown } | null)?.partitions;
  if (!Array.isArray(partitions)) throw new UsageError(`${what}: Replica election data is missing "partitions" field`);
  const out = partitions.map((p: unknown, i) => {
    const { topic, partition } = (p ?? {}) as { topic?: unknown; partition?: unknown };
    if (typeof topic !== 'string' || !Number.isInteger(partition) || (partition as number) < 0) throw new UsageError(`${what}: partitions[${i}] needs "topic" and "partition"`);
    return { topic, partition: partition as number };
  });
  const keys = out.map((p) => `${p.topic}-${p.partition}`);
  const dup = keys.filter((k, i) => keys.indexOf(k) !== i);
  if (dup.length > 0) throw new UsageError(`${what}: Replica election data contains duplicate partitions: ${[...new Set(dup)].join(',')}`);
  return out;
}

export async function electLeadersCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), electLeadersUsage, OPTIONS);
  if (values.help) {
    console.log(electLeadersUsage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, electLeadersUsage);
  const type = values['election-type']?.toLowerCase();
  if (type === undefined) throw new UsageError('Missing required option(s): election-type', electLeadersUsage);
  if (type !== 'preferred' && type !== 'unclean') throw new UsageError(`--election-type must be preferred or unclean, got "${values['election-type']}"`, electLeadersUsage);
  const scopes = [values.topic !== undefined, values['all-topic-partitions'] === true, values['path-to-json-file'] !== undefined].filter(Boolean).length;
  if (scopes !== 1) throw new UsageError('One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file', electLeadersUsage);
  if (values.topic !== undefined && values.partition === undefined) throw new UsageError('Missing required option(s): partition', electLeadersUsage);
  if (values.partition !== undefined && values.topic === undefined) throw new UsageError('Option partition is only allowed if topic is used', electLeadersUsage);
  const timeoutMs = intOption(values['timeout-ms'], 'timeout-ms', electLeadersUsage, 60_000, 1);
  let partitions: TopicPartitionRef[] | null = null;
  if (values.topic !== undefined) partitions = [{ topic: values.topic, partition: intOption(values.partition, 'partition', electLeadersUsage, 0, 0) }];
  else if (values['path-to-json-file'] !== undefined) {
    const file = values['path-to-json-file'];
    partitions = parseElectionJson(readInputFile(file, 'path-to-json-file', electLeadersUsage), file);
  }

  const client = cliClient(values['bootstrap-server'], values['command-config']);
  try {
    const results = await new Admin(client).electLeaders(type, partitions, { timeoutMs });
    const name = (r: TopicPartitionRef) => `${r.topic}-${r.partition}`;
    const succeeded = results.filter((r) => !r.error).map(name);
    const noop = results.filter((r) => r.error?.code === ErrorCode.ELECTION_NOT_NEEDED).map(name);
    const failed = results.filter((r) => r.error && r.error.code !== ErrorCode.ELECTION_NOT_NEEDED);
    const label = type.toUpperCase();
    if (succeeded.length > 0) console.log(`Successfully completed leader election (${label}) for partitions ${succeeded.join(', ')}`);
    if (noop.length > 0) console.log(`Valid replica already elected for partitions ${noop.join(', ')}`);
    if (succeeded.length === 0 && noop.length === 0 && failed.length === 0) console.log(`No partition needed a leader election (${label})`);
    for (const f of failed) console.log(`Error completing leader election (${label}) for partition: ${name(f)}: ${f.error!.codeName}: ${f.error!.message}`);
    if (failed.length > 0) {
      console.error(`gregor elect-leaders: ${failed.length} replica(s) could not be elected`);
      return 1;
    }
    return 0;
  } finally {
    await client.close();
  }
}
