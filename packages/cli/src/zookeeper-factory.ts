import { KafkaClient } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { commandConfigSecurity } from './client-factory.js';

export const DEFAULT_ZOOKEEPER = '127.0.0.1:2181';

/** A ZooKeeper connection for one CLI command (fails fast when nothing listens). */
export async function cliZooKeeper(connect: string | undefined): Promise<{ zk: KafkaZkClient; close(): Promise<void> }> {
  const client = await ZkClient.connect({ connectString: connect ?? DEFAULT_ZOOKEEPER, connectTimeoutMs: 10_000, sessionTimeoutMs: 10_000, logger: silentLogger() });
  return { zk: new KafkaZkClient(client), close: () => client.close() };
}

/**
 * A Kafka client bootstrapped from the given brokers, else from the brokers registered in ZooKeeper (the
 * first endpoint of each, which is a secured one when the cluster has no plaintext listener: hence commandConfig).
 */
export async function clientFromZooKeeper(zk: KafkaZkClient, bootstrap: string | undefined, commandConfig?: string): Promise<KafkaClient | null> {
  let brokers = bootstrap;
  if (brokers === undefined) {
    const registered = await zk.getAllBrokers();
    brokers = registered.flatMap((b) => b.endpoints.slice(0, 1).map((e) => `${e.host}:${e.port}`)).join(',');
  }
  if (!brokers) return null;
  const security = commandConfigSecurity(commandConfig);
  return new KafkaClient({ brokers, clientId: 'gregor-cli', connectTimeoutMs: 5000, retries: 2, retryBackoffMs: 200, retryBackoffMaxMs: 1000, ...(security ? { security } : {}) });
}
