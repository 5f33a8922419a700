import { AbortError, Consumer, type ConsumedRecord, type KafkaClient, type StartOffset } from '@gregor/client';
import { parseArgs } from 'node:util';
import { intOption, parsed, requireOption, unescapeSeparator } from '../args.js';
import { cliClient, COMMAND_CONFIG_HELP, commandConfigSecurity, DEFAULT_BOOTSTRAP } from '../client-factory.js';
import { consumerProperties } from '../consumer-properties.js';
import { drained } from '../output-drain.js';
import { UsageError } from '../usage-error.js';
import { consumeWithGroup } from './consume-group.js';
import { consumeWithReader } from './consume-reader.js';

export const consumeUsage = `gregor consume --topic T [options]
gregor consume --group G (--topic T | --whitelist RE) [options]
gregor consume --group G --zookeeper HOST:PORT[,...] (--topic T | --whitelist RE | --blacklist RE) [options]

Prints the records of a topic (like kafka-console-consumer): the values one per line, or JSON
lines. Without --max it follows new records until Ctrl-C.

With --group it is a member of a consumer group through the group coordinator (JoinGroup/SyncGroup,
offsets in __consumer_offsets; kafka-console-consumer --group): it shares the partitions with the
group's other members (kcat -G, kafkajs, Java consumers), starts where the group committed, and
commits what it printed (every auto.commit.interval.ms, and at the end).
With --group and --zookeeper it is Kafka's old console consumer on the ZooKeeper consumer connector,
offsets in ZooKeeper.

Options:
  --topic, -t T                  topic (required unless --whitelist/--blacklist)
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
${COMMAND_CONFIG_HELP}
  --partition N                  only partition N (default: every partition; not with --group)
  --offset N|earliest|latest     where to start (default latest; a number needs --partition;
                                 smallest and largest are accepted too)
  --from-beginning               same as --offset earliest; with --group: auto.offset.reset=earliest
  --max N                        exit after N records
  --timeout-ms MS                exit after MS without a new record
  --print-key                    print KEY<SEP>VALUE
  --key-separator SEP            separator for --print-key (default a tab)
  --format text|json             json: {topic, partition, offset, timestamp, key, value, headers} per line
  --group, -g G                  consume as a member of group G
  --zookeeper HOST:PORT[,...]    with --group: the ZooKeeper consumer connector instead of the coordinator
  --streams N                    streams (consumer threads) of this member (--zookeeper, default 1)
  --whitelist RE                 topics by regex instead of --topic (group mode; with the coordinator the
                                 topics existing at start)
  --blacklist RE                 every topic but these (--zookeeper)
  --consumer-property K=V        a consumer setting, Kafka's names (repeatable, group mode); coordinator:
                                 auto.offset.reset (earliest|latest|smallest|largest), client.id,
                                 session.timeout.ms, heartbeat.interval.ms, auto.commit.interval.ms,
                                 enable.auto.commit, partition.assignment.strategy, fetch settings
  --consumer.config FILE         consumer settings file (group mode)
                                 (--zookeeper: --from-beginning = auto.offset.reset=smallest,
                                  --timeout-ms = consumer.timeout.ms)
  --help, -h`;

const OPTIONS = {
  topic: { type: 'string', short: 't' },
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  partition: { type: 'string' },
  offset: { type: 'string' },
  'from-beginning': { type: 'boolean' },
  max: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'print-key': { type: 'boolean' },
  'key-separator': { type: 'string' },
  format: { type: 'string' },
  group: { type: 'string', short: 'g' },
  zookeeper: { type: 'string' },
  streams: { type: 'string' },
  whitelist: { type: 'string' },
  blacklist: { type: 'string' },
  'consumer-property': { type: 'string', multiple: true },
  'consumer.config': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface Selection {
  topic: string;
  partitions: number[] | undefined;
  from: StartOffset;
}

/**
 * Where records come from. Today: chosen partitions read directly from their leaders; a group
 * member (JoinGroup/SyncGroup, committed offsets) would be another source with the same shape.
 */
function partitionSource(client: KafkaClient, selection: Selection, signal: AbortSignal): AsyncIterable<ConsumedRecord> {
  return new Consumer(client).consume({ topic: selection.topic, partitions: selection.partitions, from: selection.from, signal });
}

function text(b: Buffer | null): string | null {
  return b === null ? null : b.toString('utf8');
}

export function formatRecord(r: ConsumedRecord, format: 'text' | 'json', printKey: boolean, separator: string): string {
  if (format === 'json') {
    return JSON.stringify({
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      timestamp: r.timestamp,
      key: text(r.key),
      value: text(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: text(h.value) })),
    });
  }
  const value = text(r.value) ?? 'null';
  return printKey ? `${text(r.key) ?? 'null'}${separator}${value}` : value;
}

export async function consumeCommand(argv: string[], output: NodeJS.WritableStream = process.stdout): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), consumeUsage, OPTIONS);
  if (values.help) {
    console.log(consumeUsage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, consumeUsage);
  const format0 = values.format ?? 'text';
  if (format0 !== 'text' && format0 !== 'json') throw new UsageError(`--format must be text or json, got "${format0}"`, consumeUsage);
  if (values.group !== undefined && values.zookeeper === undefined) {
    if (values.partition !== undefined || values.offset !== undefined) throw new UsageError('--partition and --offset do not apply to a group: the group assigns partitions and keeps offsets', consumeUsage);
    for (const zkOnly of ['streams', 'blacklist'] as const) {
      if (values[zkOnly] !== undefined) throw new UsageError(`--${zkOnly} applies to the ZooKeeper connector (--zookeeper)`, consumeUsage);
    }
    const printKey = values['print-key'] ?? false;
    const sep = values['key-separator'] === undefined ? '\t' : unescapeSeparator(values['key-separator']);
    return consumeWithReader({
      bootstrap: values['bootstrap-server'] ?? DEFAULT_BOOTSTRAP,
      security: commandConfigSecurity(values['command-config']),
      group: values.group,
      topic: values.topic,
      whitelist: values.whitelist,
      properties: consumerProperties(values['consumer.config'], values['consumer-property'], consumeUsage),
      fromBeginning: values['from-beginning'] ?? false,
      max: values.max === undefined ? Number.POSITIVE_INFINITY : intOption(values.max, 'max', consumeUsage, 0, 1),
      idleMs: values['timeout-ms'] === undefined ? undefined : intOption(values['timeout-ms'], 'timeout-ms', consumeUsage, 0, 1),
      format: (r) => formatRecord(r, format0, printKey, sep),
      output,
      usage: consumeUsage,
    });
  }
  if (values.zookeeper !== undefined) {
    const group = requireOption(values.group, 'group', consumeUsage);
    const zookeeper = values.zookeeper;
    if (values.partition !== undefined || values.offset !== undefined) throw new UsageError('--partition and --offset do not apply to a group: the group assigns partitions and keeps offsets', consumeUsage);
    // Kafka's old consumer (the ZooKeeper connector) never had TLS or SASL: refuse rather than connect in plaintext.
    if (values['command-config'] !== undefined) throw new UsageError('--command-config does not apply to --zookeeper: the ZooKeeper consumer connector speaks PLAINTEXT only (use --group without --zookeeper)', consumeUsage);
    const properties: Record<string, string> = { ...consumerProperties(values['consumer.config'], values['consumer-property'], consumeUsage), 'group.id': group, 'zookeeper.connect': zookeeper };
    if (values['from-beginning']) properties['auto.offset.reset'] = 'smallest';
    if (values['timeout-ms'] !== undefined) properties['consumer.timeout.ms'] = String(intOption(values['timeout-ms'], 'timeout-ms', consumeUsage, 0, 1));
    const printKey = values['print-key'] ?? false;
    const sep = values['key-separator'] === undefined ? '\t' : unescapeSeparator(values['key-separator']);
    return consumeWithGroup({
      properties,
      topic: values.topic,
      whitelist: values.whitelist,
      blacklist: values.blacklist,
      streams: intOption(values.streams, 'streams', consumeUsage, 1, 1, 1000),
      max: values.max === undefined ? Number.POSITIVE_INFINITY : intOption(values.max, 'max', consumeUsage, 0, 1),
      format: (r) => formatRecord(r, format0, printKey, sep),
      output,
      usage: consumeUsage,
    });
  }
  for (const groupOnly of ['streams', 'whitelist', 'blacklist', 'consumer-property', 'consumer.config'] as const) {
    if (values[groupOnly] !== undefined) throw new UsageError(`--${groupOnly} needs --group`, consumeUsage);
  }
  const topic = requireOption(values.topic, 'topic', consumeUsage);
  const partition = values.partition === undefined ? undefined : intOption(values.partition, 'partition', consumeUsage, 0, 0);
  if (values['from-beginning'] && values.offset !== undefined) throw new UsageError('--from-beginning and --offset exclude each other', consumeUsage);
  let from: StartOffset = values['from-beginning'] ? 'earliest' : 'latest';
  if (values.offset === 'earliest' || values.offset === 'smallest') from = 'earliest';
  else if (values.offset === 'latest' || values.offset === 'largest') from = 'latest';
  else if (values.offset !== undefined) {
    from = intOption(values.offset, 'offset', consumeUsage, 0, 0);
    if (partition === undefined) throw new UsageError('--offset N needs --partition', consumeUsage);
  }
  const max = values.max === undefined ? Number.POSITIVE_INFINITY : intOption(values.max, 'max', consumeUsage, 0, 1);
  const idleMs = values['timeout-ms'] === undefined ? undefined : intOption(values['timeout-ms'], 'timeout-ms', consumeUsage, 0, 1);
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`, consumeUsage);
  const separator = values['key-separator'] === undefined ? '\t' : unescapeSeparator(values['key-separator']);

  const client = cliClient(values['bootstrap-server'], values['command-config']);
  const stop = new AbortController();
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = (): void => {
    if (idleMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop.abort(new Error('idle timeout')), idleMs);
  };
  const onSignal = (): void => stop.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let outputClosed = false;
  const onOutputError = (error: NodeJS.ErrnoException): void => {
    // A reader that went away (`| head`) ends consumption quietly.
    if (error.code === 'EPIPE') {
      outputClosed = true;
      stop.abort(error);
    }
  };
  output.on('error', onOutputError);
  let count = 0;
  try {
    armIdle();
    const source = partitionSource(client, { topic, partitions: partition === undefined ? undefined : [partition], from }, stop.signal);
    for await (const record of source) {
      armIdle();
      if (!output.write(`${formatRecord(record, format, values['print-key'] ?? false, separator)}\n`)) await drained(output, stop.signal);
      if (outputClosed) break;
      if (++count >= max) break;
    }
  } catch (error) {
    if (!(error instanceof AbortError) || !stop.signal.aborted) throw error;
  } finally {
    clearTimeout(idleTimer);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    output.removeListener('error', onOutputError);
    await client.close();
  }
  console.error(`Processed a total of ${count} messages`);
  return 0;
}
