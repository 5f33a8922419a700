import { clientSecurityFromProperties, KafkaClient, type ClientSecurity } from '@gregor/client';
import { readPropertiesFile } from '@gregor/broker/config/config-sources';

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

/** Help text of the option every client command takes. */
export const COMMAND_CONFIG_HELP = '  --command-config FILE          client settings for a secured listener (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location, ...)';

/** The security settings of a Kafka tools style --command-config file (none = PLAINTEXT). */
export function commandConfigSecurity(file: string | undefined): ClientSecurity | undefined {
  if (file === undefined) return undefined;
  const security = clientSecurityFromProperties(readPropertiesFile(file));
  return security.tls || security.sasl ? security : undefined;
}

/** A client for one CLI command (few retries: a command line should fail fast when nothing listens). */
export function cliClient(bootstrap: string | undefined, commandConfig?: string): KafkaClient {
  const security = commandConfigSecurity(commandConfig);
  return new KafkaClient({
    brokers: bootstrap ?? DEFAULT_BOOTSTRAP,
    clientId: 'gregor-cli',
    connectTimeoutMs: 5000,
    retries: 5,
    retryBackoffMs: 200,
    retryBackoffMaxMs: 2000,
    ...(security ? { security } : {}),
  });
}
