import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@gregor/client';
import { ControlledShutdown, DeleteTopics, Fetch, LeaderAndIsr, OffsetsForLeaderEpoch, StopReplica, UpdateMetadata } from '@gregor/protocol';
import { freePorts } from '@gregor/launcher';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * Regression test for issue 12's attack: a single StopReplica v0 (delete=true, controller epoch
 * 2^31-1) from a plain socket deleted a leader's log. With a separate inter-broker listener and no
 * authorizer, the client listener refuses every controller and replica request, and the partition
 * keeps serving with its data intact.
 */
describe('controller and replica requests on a client listener (no authorizer)', () => {
  let zk: TestZooKeeper;
  const brokers: TestBroker[] = [];
  const TOPIC = 'victim';
  const RECORDS = 1000;

  beforeAll(async () => {
    zk = await startZooKeeper();
    for (const id of [1, 2, 3]) {
      const [client, internal] = await freePorts(2);
      brokers.push(
        await startBroker(zk, id, {
          port: String(client),
          listeners: `CLIENT://127.0.0.1:${client},INTERNAL://127.0.0.1:${internal}`,
          'listener.security.protocol.map': 'CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT',
          'inter.broker.listener.name': 'INTERNAL',
          'default.replication.factor': '3',
          'min.insync.replicas': '2',
          'replica.fetch.wait.max.ms': '200',
        }),
      );
    }
    await waitFor(() => brokers.every((b) => b.server.metadataCache.aliveBrokers().length === 3), 15_000, 'all brokers known');
    const [r] = await brokers[0]!.server.adminManager.createTopics([{ name: TOPIC, numPartitions: 1, replicationFactor: 3, assignments: null, configs: {} }], 15_000, false);
    expect(r!.errorCode).toBe(0);
    const lines = Array.from({ length: RECORDS }, (_, i) => `record-${i}`).join('\n') + '\n';
    const p = await kcat(['-b', bootstrap(), '-P', '-t', TOPIC, '-X', 'acks=all'], lines);
    expect(p.code, p.stderr).toBe(0);
    await waitFor(() => brokers.every((b) => b.server.replicaManager.getPartition(TOPIC, 0)?.log?.highWatermark === RECORDS), 15_000, 'every replica at the HW');
  }, 60_000);

  afterAll(async () => {
    for (const b of brokers) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });

  const bootstrap = () => brokers.map((b) => b.bootstrap).join(',');
  const leader = () => brokers.find((b) => b.server.replicaManager.getPartition(TOPIC, 0)?.isLeader)!;

  it('refuses StopReplica, LeaderAndIsr, UpdateMetadata and replica Fetch/OffsetsForLeaderEpoch; the partition serves on, data intact', async () => {
    const victim = leader();
    const stateBefore = (await victim.server.zk.getPartitionState(TOPIC, 0))!.state;
    const partitionDir = join(victim.logDir, `${TOPIC}-0`);
    expect(existsSync(partitionDir)).toBe(true);
    const replicas = victim.server.metadataCache.partitions(TOPIC)[0]!.replicas;
    const other = replicas.find((r) => r !== victim.server.brokerId)!;
    const conn = new Connection({ host: '127.0.0.1', port: victim.port, clientId: 'attacker' });
    try {
      // The attack of issue 12, exactly: StopReplica v0, delete=true, controller epoch 2^31-1.
      const stop = await conn.send(StopReplica, { controllerId: other, controllerEpoch: 2 ** 31 - 1, deletePartitions: true, ungroupedPartitions: [{ topicName: TOPIC, partitionIndex: 0 }] }, { version: 0 });
      expect(stop).toEqual({ errorCode: 31, partitionErrors: [{ topicName: TOPIC, partitionIndex: 0, errorCode: 31 }] });

      const lai = await conn.send(
        LeaderAndIsr,
        {
          controllerId: other,
          controllerEpoch: 2 ** 31 - 1,
          ungroupedPartitionStates: [{ topicName: TOPIC, partitionIndex: 0, controllerEpoch: 2 ** 31 - 1, leader: other, leaderEpoch: 1_000_000, isr: [other], zkVersion: 999, replicas }],
          liveLeaders: [{ brokerId: other, hostName: '127.0.0.1', port: 1 }],
        },
        { version: 0 },
      );
      expect(lai.errorCode).toBe(31);
      expect(lai.partitionErrors).toEqual([{ topicName: TOPIC, partitionIndex: 0, errorCode: 31 }]);

      const um = await conn.send(UpdateMetadata, { controllerId: other, controllerEpoch: 2 ** 31 - 1, ungroupedPartitionStates: [], liveBrokers: [] }, { version: 0 });
      expect(um.errorCode).toBe(31);

      // A "follower" fetch claiming to be broker `other` at an offset past the HW would move the HW and ISR.
      const fetch = await conn.send(Fetch, {
        replicaId: other,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 10 * RECORDS, logStartOffset: 0, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [],
        rackId: '',
      });
      expect(fetch.responses[0]!.partitionResponses[0]!).toMatchObject({ partition: 0, errorCode: 29, highWatermark: -1 });
      // An empty record set (size 0) as Kafka sends, never null (-1), which librdkafka cannot parse.
      expect(fetch.responses[0]!.partitionResponses[0]!.recordSet).toEqual(Buffer.alloc(0));

      const epochs = await conn.send(OffsetsForLeaderEpoch, { replicaId: other, topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] }, { version: 3 });
      expect(epochs.topics[0]!.partitions[0]!.errorCode).toBe(29);

      // __consumer_offsets is never deletable by a client.
      const del = await conn.send(DeleteTopics, { topicNames: ['__consumer_offsets'], timeoutMs: 1000 });
      expect(del.responses[0]).toMatchObject({ name: '__consumer_offsets' });
      expect([17, 41]).toContain(del.responses[0]!.errorCode); // INVALID_TOPIC_EXCEPTION (or NOT_CONTROLLER when this broker is not the controller)
    } finally {
      await conn.close();
    }

    // Nothing changed: same leader, epoch, ISR; the log is on disk and serves every record; writes go on.
    expect(existsSync(partitionDir)).toBe(true);
    const p = victim.server.replicaManager.getPartition(TOPIC, 0)!;
    expect(p.isLeader).toBe(true);
    expect(p.log!.highWatermark).toBe(RECORDS);
    const stateAfter = (await victim.server.zk.getPartitionState(TOPIC, 0))!.state;
    expect(stateAfter).toEqual(stateBefore);
    const consumed = await kcat(['-b', bootstrap(), '-C', '-t', TOPIC, '-p', '0', '-o', 'beginning', '-e', '-q']);
    expect(consumed.code, consumed.stderr).toBe(0);
    const lines = consumed.stdout.toString().trim().split('\n');
    expect(lines).toHaveLength(RECORDS);
    expect(lines[0]).toBe('record-0');
    expect(lines[RECORDS - 1]).toBe(`record-${RECORDS - 1}`);
    const more = await kcat(['-b', bootstrap(), '-P', '-t', TOPIC, '-X', 'acks=all'], 'after-the-attack\n');
    expect(more.code, more.stderr).toBe(0);
    await waitFor(() => victim.server.replicaManager.getPartition(TOPIC, 0)!.log!.highWatermark === RECORDS + 1, 10_000, 'the new record acknowledged by the ISR');
  });

  it('DeleteTopics of __consumer_offsets is refused by the controller with INVALID_TOPIC_EXCEPTION', async () => {
    const controllerId = brokers[0]!.server.metadataCache.controllerId;
    const controller = brokers.find((b) => b.server.brokerId === controllerId)!;
    const conn = new Connection({ host: '127.0.0.1', port: controller.port, clientId: 'cleaner' });
    try {
      const del = await conn.send(DeleteTopics, { topicNames: ['__consumer_offsets'], timeoutMs: 1000 });
      expect(del.responses).toEqual([{ name: '__consumer_offsets', errorCode: 17 }]);
    } finally {
      await conn.close();
    }
  });
  it('refuses ControlledShutdown on the controller\'s client listener: no leader moves, the broker is not marked as shutting down', async () => {
    const controllerId = brokers[0]!.server.metadataCache.controllerId;
    const controller = brokers.find((b) => b.server.brokerId === controllerId)!;
    const victim = leader();
    const stateBefore = (await victim.server.zk.getPartitionState(TOPIC, 0))!.state;
    const conn = new Connection({ host: '127.0.0.1', port: controller.port, clientId: 'attacker' });
    try {
      // Accepted, this would move every leadership off the victim (Kafka answers CLUSTER_AUTHORIZATION_FAILED without ClusterAction).
      const cs = await conn.send(ControlledShutdown, { brokerId: victim.server.brokerId, brokerEpoch: Number(victim.server.brokerEpoch) });
      expect(cs).toMatchObject({ errorCode: 31, remainingPartitions: [] });
      const v0 = await conn.send(ControlledShutdown, { brokerId: victim.server.brokerId, brokerEpoch: -1 }, { version: 0 });
      expect(v0.errorCode).toBe(31);
    } finally {
      await conn.close();
    }
    expect(controller.server.controller.ctx.shuttingDownBrokerIds.size).toBe(0);
    expect((await victim.server.zk.getPartitionState(TOPIC, 0))!.state).toEqual(stateBefore);
    expect(victim.server.replicaManager.getPartition(TOPIC, 0)!.isLeader).toBe(true);
  });

  it('answers ControlledShutdown v2 with an older broker epoch (an earlier life of the broker) STALE_BROKER_EPOCH; leaders stay', async () => {
    const controllerId = brokers[0]!.server.metadataCache.controllerId;
    const controller = brokers.find((b) => b.server.brokerId === controllerId)!;
    const victim = leader();
    const stateBefore = (await victim.server.zk.getPartitionState(TOPIC, 0))!.state;
    const internalPort = Number(controller.server.config.listeners.find((l) => l.listenerName === 'INTERNAL')!.port);
    const conn = new Connection({ host: '127.0.0.1', port: internalPort, clientId: 'old-life' });
    try {
      const cs = await conn.send(ControlledShutdown, { brokerId: victim.server.brokerId, brokerEpoch: Number(victim.server.brokerEpoch) - 1 }, { version: 2 });
      expect(cs).toEqual({ errorCode: 77, remainingPartitions: [] });
    } finally {
      await conn.close();
    }
    expect(controller.server.controller.ctx.shuttingDownBrokerIds.size).toBe(0);
    expect((await victim.server.zk.getPartitionState(TOPIC, 0))!.state).toEqual(stateBefore);
  });
});
