import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import type { RequestEvent } from '@gregor/broker';
import { leaderAndIsrPartitionStates, type LeaderAndIsrRequest } from '@gregor/protocol';
import { encodePreferredReplicaElection, encodeReassignment, KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Partition reassignment and preferred-replica election driven through Kafka's /admin znodes. */
describe('reassignment and preferred election through /admin znodes', () => {
  let zk: TestZooKeeper;
  let client: ZkClient;
  let kzk: KafkaZkClient;
  const brokers: TestBroker[] = [];
  const props = { 'replica.lag.time.max.ms': '3000', 'replica.fetch.wait.max.ms': '100', 'auto.leader.rebalance.enable': 'false' };
  beforeAll(async () => {
    zk = await startZooKeeper();
    for (const id of [1, 2, 3]) brokers.push(await startBroker(zk, id, props));
    client = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 6000, logger: silentLogger() });
    kzk = new KafkaZkClient(client);
    await waitFor(() => brokers.every((b) => b.server.metadataCache.aliveBrokers().length === 3), 15_000, 'brokers known');
  });
  afterAll(async () => {
    await client?.close();
    for (const b of brokers) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });
  const byId = (id: number) => brokers.find((b) => b.server.brokerId === id)!;
  const bootstrap = () => brokers.map((b) => b.bootstrap).join(',');

  it('moves a partition from broker 1 to brokers 2 and 3 with its data, then removes the old replica', async () => {
    await byId(1).server.adminManager.createTopics(
      [{ name: 'moving', numPartitions: -1, replicationFactor: -1, assignments: new Map([[0, [1]], [1, [1]]]), configs: {} }],
      10_000,
      false,
    );
    const lines = Array.from({ length: 500 }, (_, i) => `m${i}`);
    expect((await kcat(['-b', bootstrap(), '-P', '-t', 'moving', '-p', '0'], lines.join('\n') + '\n')).code).toBe(0);
    // What broker 2 is told about moving-0 (LeaderAndIsr v3+ name the replicas being added and removed, KIP-455).
    const seen: { apiVersion: number; adding: number[]; removing: number[] }[] = [];
    const observe = (e: RequestEvent) => {
      if (e.api !== 'LeaderAndIsr') return;
      for (const p of leaderAndIsrPartitionStates(e.request as LeaderAndIsrRequest)) {
        if (p.topicName === 'moving' && p.partitionIndex === 0) seen.push({ apiVersion: e.apiVersion, adding: p.addingReplicas ?? [], removing: p.removingReplicas ?? [] });
      }
    };
    byId(2).server.apis.requestObservers.add(observe);
    await client.create('/admin/reassign_partitions', encodeReassignment([{ topic: 'moving', partition: 0, replicas: [2, 3] }]));
    await waitFor(async () => (await client.exists('/admin/reassign_partitions')) === null, 30_000, 'reassignment finished');
    // The controller removes the znode once it has sent the last LeaderAndIsr (Kafka's step B10 after B5), not once
    // broker 2 has handled it: wait for broker 2 to see the final replica set.
    await waitFor(() => seen.length >= 2 && seen.at(-1)!.adding.length === 0 && seen.at(-1)!.removing.length === 0, 10_000, 'broker 2 told the final replicas');
    byId(2).server.apis.requestObservers.delete(observe);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((s) => s.apiVersion === 4)).toBe(true);
    expect(seen[0]).toMatchObject({ adding: [2, 3], removing: [1] });
    expect(seen[seen.length - 1]).toMatchObject({ adding: [], removing: [] });
    const assignment = (await kzk.getTopicAssignment('moving'))!.assignment.partitions;
    expect(assignment.get(0)).toEqual([2, 3]);
    expect(assignment.get(1)).toEqual([1]);
    const state = (await kzk.getPartitionState('moving', 0))!.state;
    expect([2, 3]).toContain(state.leader);
    expect([...state.isr].sort()).toEqual([2, 3]);
    await waitFor(() => !byId(1).server.logManager.getLog('moving', 0), 10_000, 'old replica deleted');
    for (const id of [2, 3]) expect(byId(id).server.replicaManager.getPartition('moving', 0)!.log!.logEndOffset).toBe(500);
    const c = await kcat(['-b', bootstrap(), '-C', '-t', 'moving', '-p', '0', '-e', '-q']);
    expect(c.stdout.toString()).toBe(lines.join('\n') + '\n');
  });

  it('an invalid reassignment (duplicate replicas) is dropped and the znode cleared', async () => {
    await client.create('/admin/reassign_partitions', encodeReassignment([{ topic: 'moving', partition: 1, replicas: [1, 1] }]));
    await waitFor(async () => (await client.exists('/admin/reassign_partitions')) === null, 15_000, 'znode cleared');
    expect((await kzk.getTopicAssignment('moving'))!.assignment.partitions.get(1)).toEqual([1]);
  });

  it('a move onto a broker that is not live waits for it (as Kafka\'s znode path does) and completes once it registers', async () => {
    // Broker 4 is not running: the move is started, not dropped (a target broker restarting at that moment keeps it).
    await client.create('/admin/reassign_partitions', encodeReassignment([{ topic: 'moving', partition: 1, replicas: [1, 4] }]));
    await waitFor(async () => (await kzk.getTopicAssignment('moving'))!.assignment.addingReplicas?.get(1)?.includes(4) === true, 15_000, 'broker 4 being added');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await client.exists('/admin/reassign_partitions')).not.toBeNull();
    brokers.push(await startBroker(zk, 4, props));
    await waitFor(async () => (await client.exists('/admin/reassign_partitions')) === null, 30_000, 'reassignment finished after broker 4 registered');
    expect((await kzk.getTopicAssignment('moving'))!.assignment.partitions.get(1)).toEqual([1, 4]);
    expect([...(await kzk.getPartitionState('moving', 1))!.state.isr].sort()).toEqual([1, 4]);
  });

  it('preferred replica election through /admin/preferred_replica_election moves leadership back', async () => {
    await byId(1).server.adminManager.createTopics(
      [{ name: 'preferred', numPartitions: -1, replicationFactor: -1, assignments: new Map([[0, [1, 2, 3]]]), configs: {} }],
      10_000,
      false,
    );
    await waitFor(async () => (await kzk.getPartitionState('preferred', 0))?.state.isr.length === 3, 15_000, 'ISR full');
    // Move leadership away from the preferred replica with a controlled shutdown of broker 1, then bring it back.
    const one = byId(1);
    await one.stop();
    brokers.splice(brokers.indexOf(one), 1);
    await waitFor(async () => (await kzk.getPartitionState('preferred', 0))!.state.leader !== 1, 15_000, 'leader moved');
    brokers.push(await startBroker(zk, 1, { ...props, port: String(one.port) }, one.logDir));
    await waitFor(async () => (await kzk.getPartitionState('preferred', 0))!.state.isr.includes(1), 20_000, 'broker 1 back in the ISR');
    await client.create('/admin/preferred_replica_election', encodePreferredReplicaElection([{ topic: 'preferred', partition: 0 }]));
    await waitFor(async () => (await kzk.getPartitionState('preferred', 0))!.state.leader === 1, 15_000, 'preferred leader');
    await waitFor(async () => (await client.exists('/admin/preferred_replica_election')) === null, 10_000, 'znode deleted');
  });
});
