import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { encodeConfigChangeNotification, KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** A topic config change announced in /config/changes reaches every broker and the logs they host. */
describe('topic config changes through /config/changes', () => {
  let zk: TestZooKeeper;
  let client: ZkClient;
  const brokers: TestBroker[] = [];
  beforeAll(async () => {
    zk = await startZooKeeper();
    for (const id of [1, 2]) brokers.push(await startBroker(zk, id));
    client = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 6000, logger: silentLogger() });
  });
  afterAll(async () => {
    await client?.close();
    for (const b of brokers) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });

  it('every broker applies the new overrides (min.insync.replicas, retention, segment size)', async () => {
    await brokers[0]!.server.adminManager.createTopics([{ name: 'tuned', numPartitions: 2, replicationFactor: 2, assignments: null, configs: {} }], 10_000, false);
    await waitFor(() => brokers.every((b) => b.server.replicaManager.getPartition('tuned', 1)?.log), 10_000, 'logs created');
    const kzk = new KafkaZkClient(client);
    await kzk.setTopicConfig('tuned', { 'min.insync.replicas': '2', 'retention.ms': '3600000', 'segment.bytes': '1048576' });
    await client.create('/config/changes/config_change_', encodeConfigChangeNotification('topics/tuned'), 'persistent_sequential');
    for (const b of brokers) {
      await waitFor(() => b.server.topicConfigs.get('tuned').minInsyncReplicas === 2, 10_000, `broker ${b.server.brokerId} config`);
      for (const p of [0, 1]) {
        const log = b.server.logManager.getLog('tuned', p)!;
        expect(log.config.retentionMs).toBe(3_600_000);
        expect(log.config.segmentBytes).toBe(1_048_576);
      }
    }
  });
});
