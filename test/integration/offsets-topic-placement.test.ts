import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import { FindCoordinator, Metadata } from '@gregor/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const OFFSETS_TOPIC = '__consumer_offsets';
const PROPS = { 'offsets.topic.replication.factor': '2', 'offsets.topic.num.partitions': '3', 'group.initial.rebalance.delay.ms': '0' };

/**
 * __consumer_offsets is never created with fewer replicas than offsets.topic.replication.factor (Kafka ≥ 0.11):
 * with one broker of two alive, FindCoordinator answers COORDINATOR_NOT_AVAILABLE and nothing is created.
 */
describe('__consumer_offsets placement', () => {
  let zk: TestZooKeeper;
  const brokers: TestBroker[] = [];
  let conn: Connection;
  beforeAll(async () => {
    zk = await startZooKeeper();
    brokers.push(await startBroker(zk, 1, PROPS));
    conn = new Connection({ host: '127.0.0.1', port: brokers[0]!.port, clientId: 'placement' });
    await conn.connect();
  });
  afterAll(async () => {
    await conn?.close();
    for (const b of brokers) await b.stop();
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });

  it('answers COORDINATOR_NOT_AVAILABLE until enough brokers are alive, then creates the topic with the full factor', async () => {
    // The broker knows it is alive (the controller told it) before it is asked.
    await waitFor(async () => (await conn.send(Metadata, { topics: [] })).brokers.length === 1, 15_000, 'broker 1 in its own metadata');
    for (let i = 0; i < 5; i++) {
      const found = await conn.send(FindCoordinator, { key: 'g', keyType: 0 });
      expect(found.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      await new Promise((r) => setTimeout(r, 100));
    }
    const asked = await conn.send(Metadata, { topics: [{ name: OFFSETS_TOPIC }], allowAutoTopicCreation: true });
    expect(asked.topics[0]).toMatchObject({ name: OFFSETS_TOPIC, errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, partitions: [] });
    // Nothing was created behind the refusals (a creation would show up within a moment).
    await new Promise((r) => setTimeout(r, 500));
    const none = await conn.send(Metadata, { topics: [{ name: OFFSETS_TOPIC }], allowAutoTopicCreation: false });
    expect(none.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

    brokers.push(await startBroker(zk, 2, PROPS));
    const coordinator = await waitFor(
      async () => {
        const found = await conn.send(FindCoordinator, { key: 'g', keyType: 0 });
        return found.errorCode === ErrorCode.NONE ? found : null;
      },
      20_000,
      'a coordinator once two brokers are alive',
    );
    expect([1, 2]).toContain(coordinator.nodeId);
    const md = await conn.send(Metadata, { topics: [{ name: OFFSETS_TOPIC }], allowAutoTopicCreation: false });
    const partitions = md.topics[0]!.partitions;
    expect(partitions).toHaveLength(3);
    for (const p of partitions) expect([...p.replicaNodes].sort()).toEqual([1, 2]);
  });
});
