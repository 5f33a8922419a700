import { COMPRESSION_NAMES, Producer, isCompressionName, type Acks, type ProducerMessage } from '@gregor/client';
import { ConfigError } from '@gregor/common';
import { fstatSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { intOption, parsed, requireOption, unescapeSeparator } from '../args.js';
import { cliClient } from '../client-factory.js';
import { LineQueue } from '../line-queue.js';
import { formatBytes, Progress } from '../progress.js';
import { UsageError } from '../usage-error.js';

export const produceUsage = `gregor produce --topic T [options] < lines

Sends the lines of stdin to a topic, one record per line (like kafka-console-producer).
Lines are batched: whatever has arrived is sent together, one request in flight at a time.
On a terminal (stderr a TTY) a status line shows the progress (and, when stdin is a file, how much
of it is read); otherwise only the summary is printed at the end.

Options:
  --topic, -t T                  topic (required)
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
  --key-separator SEP            each line is KEY<SEP>VALUE (parse.key); a line without SEP is an error
  --acks 0|1|all                 default all
  --header K=V                   a header on every record (repeatable; a key may repeat)
  --compression none|gzip|snappy|lz4|zstd   default none
  --partition N                  send every record to partition N (default: by key, sticky without)
  --batch-size N                 most records per request (default 5000)
  --quiet, -q                    no summary or progress on stderr
  --help, -h`;

const OPTIONS = {
  topic: { type: 'string', short: 't' },
  'bootstrap-server': { type: 'string' },
  'key-separator': { type: 'string' },
  acks: { type: 'string' },
  compression: { type: 'string' },
  header: { type: 'string', multiple: true },
  partition: { type: 'string' },
  'batch-size': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;

const MAX_BATCH_BYTES = 512 * 1024; // stays under the broker's message.max.bytes (1 MB) per partition batch

/** `--header k=v` flags, in order (Kafka headers may repeat a key); an empty value is kept. */
export function parseHeaders(flags: readonly string[] | undefined): { key: string; value: string }[] {
  return (flags ?? []).map((h) => {
    const eq = h.indexOf('=');
    if (eq <= 0) throw new UsageError(`--header takes key=value, got "${h}"`, produceUsage);
    return { key: h.slice(0, eq), value: h.slice(eq + 1) };
  });
}

/** The size of stdin when it is a regular file (\`gregor produce < file\`), for the progress line. */
function inputSize(input: NodeJS.ReadableStream): number | undefined {
  if (input !== process.stdin) return undefined;
  try {
    const st = fstatSync(0);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

export function parseAcks(value: string | undefined): Acks {
  switch (value ?? 'all') {
    case 'all':
    case '-1':
      return -1;
    case '1':
      return 1;
    case '0':
      return 0;
    default:
      throw new UsageError(`--acks must be 0, 1 or all, got "${value}"`, produceUsage);
  }
}

export async function produceCommand(argv: string[], input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), produceUsage, OPTIONS);
  if (values.help) {
    console.log(produceUsage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, produceUsage);
  const topic = requireOption(values.topic, 'topic', produceUsage);
  const acks = parseAcks(values.acks);
  const compression = values.compression ?? 'none';
  if (!isCompressionName(compression)) throw new UsageError(`--compression must be one of ${COMPRESSION_NAMES.join(', ')}, got "${compression}"`, produceUsage);
  const headers = parseHeaders(values.header);
  const partition = values.partition === undefined ? undefined : intOption(values.partition, 'partition', produceUsage, 0, 0);
  const batchSize = intOption(values['batch-size'], 'batch-size', produceUsage, 5000, 1, 1_000_000);
  const separator = values['key-separator'] === undefined ? undefined : unescapeSeparator(values['key-separator']);
  if (separator === '') throw new UsageError('--key-separator must not be empty', produceUsage);

  const client = cliClient(values['bootstrap-server']);
  // A codec the client cannot write is refused here, before stdin is read (ConfigError: exit 1, naming it).
  let producer: Producer;
  try {
    producer = new Producer(client, { acks, compression });
  } catch (error) {
    await client.close();
    throw error;
  }
  const size = inputSize(input);
  let read = 0;
  input.on('data', (chunk: Buffer | string) => (read += chunk.length));
  const lines = new LineQueue(input);
  const started = Date.now();
  let sent = 0;
  let lineNumber = 0;
  const rate = (): string => {
    const seconds = (Date.now() - started) / 1000;
    return `${sent} records in ${seconds.toFixed(2)} s (${Math.round(sent / Math.max(seconds, 0.001))} records/s)`;
  };
  const progress = new Progress(process.stderr, !values.quiet && process.stderr.isTTY === true);
  progress.start(() => {
    const perSecond = Math.round(sent / Math.max((Date.now() - started) / 1000, 0.001));
    const file = size ? `, read ${formatBytes(read)} of ${formatBytes(size)} (${Math.floor((100 * read) / Math.max(size, 1))}%)` : '';
    return `gregor produce: ${sent} records (${perSecond}/s)${file}, ${progress.elapsed}`;
  });
  // Ctrl-C: stop reading, let the request in flight finish, print the summary; twice: exit now.
  let interrupts = 0;
  const onSignal = (): void => {
    if (++interrupts > 1) process.exit(130);
    lines.close();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    for (;;) {
      const batch = await lines.take(batchSize, MAX_BATCH_BYTES);
      if (batch === null) break;
      const messages: ProducerMessage[] = [];
      let bad: string | undefined;
      for (const line of batch) {
        lineNumber++;
        if (separator === undefined) {
          messages.push({ value: line, partition, headers });
          continue;
        }
        const at = line.indexOf(separator);
        if (at < 0) {
          bad = `no key separator found on line number ${lineNumber}: '${line}'`;
          break;
        }
        messages.push({ key: line.slice(0, at), value: line.slice(at + separator.length), partition, headers });
      }
      if (messages.length > 0) {
        await producer.send({ topic, messages });
        sent += messages.length;
      }
      if (bad !== undefined) {
        lines.close();
        throw new ConfigError(bad);
      }
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    progress.done();
    if (!values.quiet) console.error(`gregor produce: ${rate()}`);
    await client.close();
  }
  return 0;
}
