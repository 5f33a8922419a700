import { parseArgs } from 'node:util';
import { Admin } from '@gregor/client';
import { intOption, parsed, readInputFile, requireOption } from '../args.js';
import { cliClient, COMMAND_CONFIG_HELP } from '../client-factory.js';
import { UsageError } from '../usage-error.js';

export const deleteRecordsUsage = `gregor delete-records --offset-json-file F [options]

Deletes the records of partitions below an offset (DeleteRecords at each partition's leader, like
kafka-delete-records): the log start offset (low watermark) moves up to it; offset -1 = the high
watermark (everything). The file: {"partitions":[{"topic":"foo","partition":1,"offset":1}],"version":1}

Options:
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
${COMMAND_CONFIG_HELP}
  --timeout-ms MS                how long the leaders may wait for their followers (default 30000)
  --help, -h`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  'offset-json-file': { type: 'string' },
  'timeout-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** kafka-delete-records' JSON (version 1, the default): duplicate partitions are refused. */
export function parseOffsetJson(text: string, what: string): { topic: string; partition: number; offset: number }[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what}: The input string is not a valid JSON (${(error as Error).message})`);
  }
  const root = (json ?? {}) as { version?: unknown; partitions?: unknown };
  if ((root.version ?? 1) !== 1) throw new UsageError(`${what}: Not supported version field value ${JSON.stringify(root.version)}`);
  if (!Array.isArray(root.partitions)) throw new UsageError(`${what}: Missing partitions field`);
  const out = root.partitions.map((p: unknown, i) => {
    const { topic, partition, offset } = (p ?? {}) as { topic?: unknown; partition?: unknown; offset?: unknown };
    if (typeof topic !== 'string' || !Number.isInteger(partition) || (partition as number) < 0 || !Number.isInteger(offset) || (offset as number) < -1) {
      throw new UsageError(`${what}: partitions[${i}] needs "topic", "partition" and "offset" (-1 = the high watermark)`);
    }
    return { topic, partition: partition as number, offset: offset as number };
  });
  const keys = out.map((p) => `${p.topic}-${p.partition}`);
  const dup = keys.filter((k, i) => keys.indexOf(k) !== i);
  if (dup.length > 0) throw new UsageError(`${what}: Offset json file contains duplicate topic partitions: ${[...new Set(dup)].join(',')}`);
  return out;
}

export async function deleteRecordsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), deleteRecordsUsage, OPTIONS);
  if (values.help) {
    console.log(deleteRecordsUsage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, deleteRecordsUsage);
  const file = requireOption(values['offset-json-file'], 'offset-json-file', deleteRecordsUsage);
  const requests = parseOffsetJson(readInputFile(file, 'offset-json-file', deleteRecordsUsage), file);
  const timeoutMs = intOption(values['timeout-ms'], 'timeout-ms', deleteRecordsUsage, 30_000, 1);
  const client = cliClient(values['bootstrap-server'], values['command-config']);
  try {
    console.log('Executing records delete operation');
    const results = await new Admin(client).deleteRecords(requests, { timeoutMs });
    console.log('Records delete operation completed:');
    for (const r of results) {
      console.log(r.error ? `partition: ${r.topic}-${r.partition}\terror: ${r.error.message}` : `partition: ${r.topic}-${r.partition}\tlow_watermark: ${r.lowWatermark}`);
    }
    return results.some((r) => r.error) ? 1 : 0;
  } finally {
    await client.close();
  }
}
