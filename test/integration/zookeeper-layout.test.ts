import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { ZkClient } from '@gregor/zookeeper';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const json = async (zk: ZkClient, path: string) => JSON.parse((await zk.getData(path)).data.toString('utf8'));

/** The znodes gregor writes are Kafka's, path for path and field for field, so Kafka's tools could read them. */
describe("ZooKeeper layout is Kafka's", () => {
  let zk: TestZooKeeper;
  let client: ZkClient;
  let b1: TestBroker;
  let b2: TestBroker;
  beforeAll(async () => {
    zk = await startZooKeeper();
    b1 = await startBroker(zk, 1);
    b2 = await startBroker(zk, 2);
    client = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 6000, logger: silentLogger() });
  });
  afterAll(async () => {
    await client?.close();
    for (const b of [b2, b1]) if (b) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of [b1, b2]) if (b) removeDir(b.logDir);
  });

  it('persistent parents, cluster id, broker registrations, controller and epoch', async () => {
    for (const p of ['/consumers', '/brokers/ids', '/brokers/topics', '/brokers/seqid', '/config/topics', '/config/changes', '/admin/delete_topics', '/isr_change_notification']) {
      expect(await client.exists(p), p).not.toBeNull();
    }
    const cluster = await json(client, '/cluster/id');
    expect(cluster.version).toBe('1');
    expect(cluster.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await client.getChildren('/brokers/ids')).sort()).toEqual(['1', '2']);
    const reg = await json(client, '/brokers/ids/1');
    expect(reg).toEqual({
      listener_security_protocol_map: { PLAINTEXT: 'PLAINTEXT' },
      endpoints: [`PLAINTEXT://127.0.0.1:${b1.port}`],
      jmx_port: -1,
      host: '127.0.0.1',
      timestamp: expect.stringMatching(/^\d{13}$/),
      port: b1.port,
      version: 4,
    });
    const ctl = await json(client, '/controller');
    expect(ctl).toEqual({ version: 1, brokerid: expect.any(Number), timestamp: expect.stringMatching(/^\d+$/) });
    expect(Number((await client.getData('/controller_epoch')).data.toString())).toBeGreaterThanOrEqual(1);
    const ephemeral = await client.exists('/brokers/ids/1');
    expect(ephemeral!.ephemeralOwner).not.toBe(0n);
  });

  it('topic assignment, partition state and config znodes', async () => {
    await b1.server.adminManager.createTopics(
      [{ name: 'layout', numPartitions: 4, replicationFactor: 2, assignments: null, configs: { 'retention.ms': '3600000' } }],
      10_000,
      false,
    );
    const assignment = await json(client, '/brokers/topics/layout');
    expect(assignment.version).toBe(2);
    expect(Object.keys(assignment.partitions).sort()).toEqual(['0', '1', '2', '3']);
    for (const replicas of Object.values(assignment.partitions) as number[][]) expect([...replicas].sort()).toEqual([1, 2]);
    expect(assignment.adding_replicas).toEqual({});
    expect(assignment.removing_replicas).toEqual({});
    const state = await json(client, '/brokers/topics/layout/partitions/0/state');
    expect(state).toEqual({ controller_epoch: expect.any(Number), leader: assignment.partitions['0'][0], version: 1, leader_epoch: 0, isr: expect.any(Array) });
    expect(await json(client, '/config/topics/layout')).toEqual({ version: 1, config: { 'retention.ms': '3600000' } });
  });

  it('topic deletion goes through /admin/delete_topics and removes every znode and log', async () => {
    expect((await kcat(['-b', b1.bootstrap, '-P', '-t', 'doomed'], 'a\nb\n')).code).toBe(0);
    const [r] = await b1.server.adminManager.deleteTopics(['doomed'], 10_000);
    expect(r!.errorCode === 0 || b1.server.controller.isActive === false).toBe(true);
    // The controller removes the topic, its config and the deletion marker one after the other (as Kafka does).
    await waitFor(async () => (await client.exists('/brokers/topics/doomed')) === null, 10_000, 'topic znode removal');
    await waitFor(async () => (await client.exists('/admin/delete_topics/doomed')) === null, 10_000, 'deletion marker removal');
    expect(await client.exists('/config/topics/doomed')).toBeNull();
    await waitFor(() => !b1.server.logManager.getLog('doomed', 0) && !b2.server.logManager.getLog('doomed', 0), 10_000, 'log removal');
  });

  it('when the controller stops, the other broker becomes controller with a higher epoch', async () => {
    const before = await json(client, '/controller');
    const epochBefore = Number((await client.getData('/controller_epoch')).data.toString());
    const [controller, other] = before.brokerid === 1 ? [b1, b2] : [b2, b1];
    await controller.stop();
    await waitFor(async () => (await json(client, '/controller').catch(() => null))?.brokerid === other.server.brokerId, 20_000, 'new controller');
    expect(Number((await client.getData('/controller_epoch')).data.toString())).toBeGreaterThan(epochBefore);
    // Active once its failover has loaded the cluster state, shortly after it wins the znode.
    await waitFor(() => other.server.controller.isActive, 20_000, 'the new controller active');
    // The survivor leads every partition of the replicated topic now.
    await waitFor(() => other.server.metadataCache.partitions('layout').every((p) => p.leader === other.server.brokerId), 20_000, 'leaders moved');
  });
});
