import { parseArgs } from 'node:util';
import { readPropertiesFile } from '@gregor/broker';
import { createLogger } from '@gregor/common';
import { keyValues, parsed, requireOption } from '../args.js';
import { ConsumerService } from '../consumer-service/consumer-service.js';
import { consumerServiceConfig } from '../consumer-service/service-config.js';
import { UsageError } from '../usage-error.js';

export const consumerServiceUsage = `gregor consumer-service --config consumer.properties [--override key=value ...]

Runs one member of a consumer group (the ZooKeeper consumer connector) until SIGTERM/SIGINT, and
answers on HTTP: GET /healthz, /v1/consumer (counts, rebalances, fetchers), /v1/partitions (owned
partitions with positions and lag). Prints "listening on http://HOST:PORT" to stdout once serving.

The file holds consumer settings with Kafka's names (group.id, zookeeper.connect, auto.offset.reset,
...) and the service's own: topics=T1[:streams],T2 | topic.whitelist=RE | topic.blacklist=RE,
num.streams (default 1), http.host (default 127.0.0.1), http.port (default 8090; 0 = any).

Options:
  --config FILE          the settings file (required)
  --override K=V         a setting overriding the file (repeatable)
  --help, -h`;

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  override: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function consumerServiceCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), consumerServiceUsage, OPTIONS);
  if (values.help) {
    console.log(consumerServiceUsage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`, consumerServiceUsage);
  const file = requireOption(values.config, 'config', consumerServiceUsage);
  let props: Map<string, string>;
  try {
    props = readPropertiesFile(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`, consumerServiceUsage);
  }
  for (const [k, v] of Object.entries(keyValues(values.override, 'override', consumerServiceUsage))) props.set(k, v);
  const config = consumerServiceConfig(props);
  const log = createLogger('consumer-service');
  const service = await ConsumerService.start(config, log);
  console.log(`listening on http://${config.httpHost}:${service.port}`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.removeListener('SIGTERM', stop);
      process.removeListener('SIGINT', stop);
      void service.stop().then(resolve, (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  console.error(`consumer-service stopped after ${service.consumed} records`);
  return 0;
}
