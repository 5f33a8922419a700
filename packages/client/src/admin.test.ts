import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import {
  CreatePartitions,
  CreateTopics,
  DeleteTopics,
  encodeRecordBatch,
  type CreatePartitionsRequest,
  type CreateTopicsRequest,
  type DeleteTopicsRequest,
} from '@gregor/protocol';
import { FakeCluster } from '../test/fake-cluster.js';
import { Admin } from './admin.js';
import { KafkaClient } from './cluster.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** Brokers that act on topic changes only when they are the controller, as Kafka's do. */
async function setup(): Promise<{ cluster: FakeCluster; admin: Admin; client: KafkaClient }> {
  const cluster = (await FakeCluster.start([1, 2], [CreateTopics, DeleteTopics, CreatePartitions])).serveData();
  cleanup.push(() => cluster.close());
  for (const [nodeId, broker] of cluster.brokers) {
    const notController = () => nodeId !== cluster.controllerId;
    broker.on(CreateTopics, (body: CreateTopicsRequest) => ({
      throttleTimeMs: 0,
      topics: body.topics.map((t) => {
        if (notController()) return { name: t.name, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: null };
        if (cluster.topics.has(t.name)) return { name: t.name, errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: `Topic '${t.name}' already exists.` };
        const leaders = t.assignments.length > 0 ? t.assignments.map((a) => a.brokerIds[0]!) : Array.from({ length: t.numPartitions }, (_, i) => 1 + (i % 2));
        if (!body.validateOnly) cluster.addTopic(t.name, leaders);
        return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
      }),
    }));
    broker.on(DeleteTopics, (body: DeleteTopicsRequest) => ({
      throttleTimeMs: 0,
      responses: body.topicNames.map((name) => {
        if (notController()) return { name, errorCode: ErrorCode.NOT_CONTROLLER };
        return { name, errorCode: cluster.topics.delete(name) ? ErrorCode.NONE : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
      }),
    }));
    broker.on(CreatePartitions, (body: CreatePartitionsRequest) => ({
      throttleTimeMs: 0,
      results: body.topics.map((t) => {
        if (notController()) return { name: t.name, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: null };
        const partitions = cluster.topics.get(t.name)!;
        while (partitions.length < t.count) partitions.push({ partition: partitions.length, leader: 1, leaderEpoch: 0, replicas: [1], isr: [1] });
        return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
      }),
    }));
  }
  const client = new KafkaClient({ brokers: cluster.bootstrap, retryBackoffMs: 5, retryBackoffMaxMs: 20 });
  cleanup.push(() => client.close());
  return { cluster, admin: new Admin(client), client };
}

describe('Admin', () => {
  it('creates topics on the controller and reports per-topic errors', async () => {
    const { cluster, admin } = await setup();
    cluster.controllerId = 2;
    const results = await admin.createTopics([
      { name: 'a', numPartitions: 3, replicationFactor: 1, configs: { 'cleanup.policy': 'delete' } },
      { name: 'b', numPartitions: -1, replicationFactor: -1, replicaAssignment: { 1: [2, 1], 0: [1, 2] } },
    ]);
    expect(results.map((r) => [r.name, r.errorCode])).toEqual([['a', 0], ['b', 0]]);
    const [request] = cluster.broker(2).requestsOf(CreateTopics);
    expect(cluster.broker(1).requestsOf(CreateTopics)).toHaveLength(0);
    expect(request!.body).toMatchObject({
      topics: [
        { name: 'a', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [{ name: 'cleanup.policy', value: 'delete' }] },
        { name: 'b', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }, { partitionIndex: 1, brokerIds: [2, 1] }] },
      ],
      timeoutMs: 30_000,
    });
    const [again] = await admin.createTopics([{ name: 'a', numPartitions: 1, replicationFactor: 1 }]);
    expect(again).toMatchObject({ errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: "Topic 'a' already exists." });
    expect(again!.error).toMatchObject({ code: ErrorCode.TOPIC_ALREADY_EXISTS, retriable: false });
    expect(await admin.listTopics()).toEqual(['a', 'b']);
  });

  it('follows the controller when it moves (NOT_CONTROLLER)', async () => {
    const { cluster, admin, client } = await setup();
    await client.connect();
    expect(client.controllerId).toBe(1);
    cluster.controllerId = 2;
    const [result] = await admin.createTopics([{ name: 'moved', numPartitions: 1, replicationFactor: 1 }]);
    expect(result!.errorCode).toBe(ErrorCode.NONE);
    expect(cluster.broker(1).requestsOf(CreateTopics)).toHaveLength(1);
    expect(cluster.broker(2).requestsOf(CreateTopics)).toHaveLength(1);
    expect(client.controllerId).toBe(2);
  });

  it('validates without creating when asked', async () => {
    const { cluster, admin } = await setup();
    const [result] = await admin.createTopics([{ name: 'v', numPartitions: 2, replicationFactor: 1 }], { validateOnly: true, timeoutMs: 500 });
    expect(result!.errorCode).toBe(ErrorCode.NONE);
    expect(cluster.topics.has('v')).toBe(false);
  });

  it('deletes topics, adds partitions and describes topics', async () => {
    const { cluster, admin } = await setup();
    cluster.addTopic('x', [1]);
    cluster.addTopic('y', [2]);
    const [grown] = await admin.createPartitions([{ topic: 'x', count: 3 }]);
    expect(grown!.errorCode).toBe(ErrorCode.NONE);
    const [x, missing] = await admin.describeTopics(['x', 'zz']);
    expect(x!.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(missing).toMatchObject({ name: 'zz', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    const deleted = await admin.deleteTopics(['y', 'never']);
    expect(deleted.map((r) => r.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect(await admin.listTopics()).toEqual(['x']);
  });

  it('lists offsets: earliest, latest and by timestamp', async () => {
    const { cluster, admin } = await setup();
    cluster.addTopic('o', [2]);
    for (const ts of [100, 200]) {
      cluster.append('o', 0, encodeRecordBatch({ baseOffset: 0, compression: 0, firstTimestamp: ts, records: [{ key: null, value: null, headers: [], timestamp: ts }] }));
    }
    expect((await admin.listOffsets('o', 0, -2)).offset).toBe(0);
    expect((await admin.listOffsets('o', 0, -1)).offset).toBe(2);
    expect((await admin.listOffsets('o', 0, 150)).offset).toBe(1);
  });

  it('waits until new topics have leaders', async () => {
    const { cluster, admin } = await setup();
    cluster.addTopic('w', [-1, -1]);
    setTimeout(() => {
      cluster.moveLeader('w', 0, 1);
      cluster.moveLeader('w', 1, 2);
    }, 50);
    await admin.waitForLeaders(['w'], 5_000);
    await expect(admin.waitForLeaders(['never'], 150)).rejects.toMatchObject({ code: ErrorCode.REQUEST_TIMED_OUT });
  });
});
