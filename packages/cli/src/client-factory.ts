import { KafkaClient } from '@gregor/client';

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

/** A client for one CLI command (few retries: a command line should fail fast when nothing listens). */
export function cliClient(bootstrap: string | undefined): KafkaClient {
  return new KafkaClient({ brokers: bootstrap ?? DEFAULT_BOOTSTRAP, clientId: 'gregor-cli', connectTimeoutMs: 5000, retries: 5, retryBackoffMs: 200, retryBackoffMaxMs: 2000 });
}
