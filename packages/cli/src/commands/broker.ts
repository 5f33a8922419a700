import { parseArgs } from 'node:util';
import { ConfigError, createLogger, deferred } from '@gregor/common';
import { buildBrokerConfig, KafkaServer, propertiesFromEnv, propertiesFromOverrides, readPropertiesFile } from '@gregor/broker';
import { startAdminServer } from '@gregor/admin';
import { parsed } from '../args.js';

export const brokerUsage = `gregor broker --config server.properties [--override key=value ...]

Runs one broker in the foreground. Settings: the properties file (Kafka's names), then
KAFKA_* or KAFKA_CFG_* environment variables (KAFKA_LOG_DIRS -> log.dirs), then --override flags.
Unknown settings are ignored with a warning.
SIGTERM or SIGINT stops it cleanly (controlled shutdown first).`;

const OPTIONS = { config: { type: 'string', short: 'c' }, override: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } } as const;

export async function brokerCommand(argv: string[]): Promise<number> {
  const { values } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true }), brokerUsage, OPTIONS);
  if (values.help) {
    console.log(brokerUsage);
    return 0;
  }
  let config;
  try {
    const file = values.config ? readPropertiesFile(values.config) : new Map<string, string>();
    config = buildBrokerConfig(file, propertiesFromEnv(process.env), propertiesFromOverrides(values.override ?? []));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`gregor broker: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const log = createLogger('gregor-broker', { bindings: { brokerId: config.brokerId } });
  const server = new KafkaServer(config, { logger: log });
  let admin: { close(): Promise<void> } | null = null;
  const stopped = deferred<void>();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    void (async () => {
      await admin?.close().catch((err: unknown) => log.warn({ err }, 'admin server close failed'));
      await server.shutdown();
    })().then(stopped.resolve, stopped.reject);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  try {
    await server.startup();
    if (config.httpPort >= 0) admin = await startAdminServer(server, { host: config.httpHost, port: config.httpPort, logger: log, authToken: config.httpAuthToken });
  } catch (err) {
    log.fatal({ err }, 'startup failed');
    await server.shutdown().catch(() => {});
    return 1;
  }
  await stopped.promise;
  log.flush();
  return 0;
}
