import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, KafkaOffsetStore, Producer, Reader, type Message } from '@gregor/client';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const PARTITIONS = 6;

/** The kafka-go style Reader against one broker: splitting, commit modes, close() leaving the group, the offset store. */
describe('Reader', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.num.partitions': '3', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '200' });
    client = new KafkaClient({ brokers: broker.bootstrap });
  });
  afterAll(async () => {
    await client?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  async function topicWith(name: string, n: number): Promise<void> {
    const [r] = await new Admin(client).createTopics([{ name, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    expect(r!.errorCode).toBe(0);
    await new Producer(client).send({ topic: name, messages: Array.from({ length: n }, (_, i) => ({ partition: i % PARTITIONS, value: `m${i}` })) });
  }

  const reader = (topic: string, groupId: string, commitIntervalMs: number) =>
    new Reader({ brokers: broker.bootstrap, groupId, topic, sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, rebalanceTimeoutMs: 6000, commitIntervalMs });

  it('two readers with readMessage split the partitions and read everything once; close() hands the partitions over at once', async () => {
    await topicWith('r1', 600);
    const a = reader('r1', 'g-r1', 0);
    const b = reader('r1', 'g-r1', 0);
    const got: Message[] = [];
    const pump = (r: Reader, signal: AbortSignal) =>
      (async () => {
        for (;;) {
          try {
            got.push(await r.readMessage(signal));
          } catch {
            if (signal.aborted) return;
          }
        }
      })();
    const stopA = new AbortController();
    const stopB = new AbortController();
    const loops = [pump(a, stopA.signal), pump(b, stopB.signal)];
    await waitFor(() => a.assignment().length > 0 && b.assignment().length > 0 && a.assignment().length + b.assignment().length === PARTITIONS, 20_000, 'split');
    await waitFor(() => new Set(got.map((m) => m.value!.toString())).size === 600, 20_000, 'all read');
    expect(got).toHaveLength(600);
    const aParts = new Set(a.assignment().map((x) => x.partition));
    expect(b.assignment().some((x) => aParts.has(x.partition))).toBe(false);

    stopB.abort();
    await loops[1];
    const closing = Date.now();
    await b.close();
    await waitFor(() => a.assignment().length === PARTITIONS, 5000, 'a takes over after b leaves');
    expect(Date.now() - closing).toBeLessThan(5000);
    stopA.abort();
    await loops[0];
    await a.close();
    const committed = await new KafkaOffsetStore(client, 'g-r1').fetch(Array.from({ length: PARTITIONS }, (_, p) => ({ topic: 'r1', partition: p })));
    expect([...committed.values()].map((c) => c.offset)).toEqual(Array(PARTITIONS).fill(100));
  }, 60_000);

  it('commitInterval > 0 merges commits per partition; the next reader of the group resumes after them', async () => {
    await topicWith('r2', 3000);
    const r = reader('r2', 'g-r2', 200);
    for (let i = 0; i < 3000; i++) await r.commitMessages(await r.fetchMessage());
    expect(r.stats.commits).toBeLessThan(300);
    await r.close();
    await new Producer(client).send({ topic: 'r2', messages: [{ partition: 0, value: 'late' }] });
    const next = reader('r2', 'g-r2', 0);
    try {
      expect((await next.readMessage(AbortSignal.timeout(15_000))).value!.toString()).toBe('late');
    } finally {
      await next.close();
    }
  }, 60_000);

  it('close() while its JoinGroup waits for the rest of the group returns instead of starting that generation', async () => {
    await topicWith('r3', 60);
    // a heartbeats only every 2 s, so b's JoinGroup waits up to 2 s for a to rejoin.
    const a = new Reader({ brokers: broker.bootstrap, groupId: 'g-r3', topic: 'r3', sessionTimeoutMs: 10_000, heartbeatIntervalMs: 2000, rebalanceTimeoutMs: 10_000 });
    const b = reader('r3', 'g-r3', 0);
    try {
      await a.fetchMessage(AbortSignal.timeout(15_000));
      expect(a.assignment()).toHaveLength(PARTITIONS);
      const generation = a.generationId;
      const taken = b.fetchMessage().catch((e: Error) => e);
      await new Promise((r) => setTimeout(r, 500)); // b's JoinGroup is at the coordinator, waiting for a
      const closing = Date.now();
      await b.close();
      expect(Date.now() - closing).toBeLessThan(8000);
      expect(await taken).toBeInstanceOf(Error);
      expect(b.assignment()).toEqual([]);
      // b left: a ends up with every partition in a newer generation.
      await waitFor(() => a.generationId > generation + 1 && a.assignment().length === PARTITIONS, 20_000, 'a owns every partition again');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('KafkaOffsetStore (offsets.storage=kafka) commits outside any generation, as the ZooKeeper connector does; kafkajs sees them', async () => {
    const store = new KafkaOffsetStore(client, 'zk-style');
    await store.commit([{ topic: 'r1', partition: 0, offset: 42, metadata: 'from-zk-connector' }, { topic: 'r1', partition: 1, offset: 7 }]);
    const fetched = await store.fetch([{ topic: 'r1', partition: 0 }, { topic: 'r1', partition: 1 }, { topic: 'r1', partition: 2 }]);
    expect([...fetched.values()].map((o) => [o.partition, o.offset, o.metadata])).toEqual([[0, 42, 'from-zk-connector'], [1, 7, ''], [2, -1, '']]);
    const kafka = new Kafka({ clientId: 'check', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const [t] = await admin.fetchOffsets({ groupId: 'zk-style', topics: ['r1'] });
      expect(t!.partitions.filter((p) => p.partition < 2).map((p) => [p.partition, p.offset])).toEqual([[0, '42'], [1, '7']]);
      expect((await admin.describeGroups(['zk-style'])).groups[0]!.state).toBe('Empty');
    } finally {
      await admin.disconnect();
    }
  }, 30_000);
});
