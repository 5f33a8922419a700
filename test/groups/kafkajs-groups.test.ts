import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Reader, type Message } from '@gregor/client';
import { Metadata } from '@gregor/protocol';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const PROPS = {
  'offsets.topic.num.partitions': '5',
  'offsets.topic.replication.factor': '2',
  'default.replication.factor': '2',
  'group.initial.rebalance.delay.ms': '200',
};

/** kafkajs 2.2.4 consumer groups, admin group APIs, and a mixed group with the gregor Reader. */
describe('kafkajs consumer groups and the Reader', () => {
  let zk: TestZooKeeper;
  let brokers: TestBroker[] = [];
  let kafka: Kafka;
  const consumers: Consumer[] = [];
  const readers: Reader[] = [];
  const bootstrap = () => brokers.map((b) => b.bootstrap);
  beforeAll(async () => {
    zk = await startZooKeeper();
    brokers = [await startBroker(zk, 1, PROPS), await startBroker(zk, 2, PROPS)];
    kafka = new Kafka({ clientId: 'kjs', brokers: bootstrap(), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
  });
  afterAll(async () => {
    await Promise.allSettled(consumers.map((c) => c.disconnect()));
    await Promise.allSettled(readers.map((r) => r.close()));
    for (const b of brokers) await b.stop();
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });

  async function produce(topic: string, from: number, n: number): Promise<void> {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: n }, (_, i) => ({ key: `k${(from + i) % 17}`, value: `v${from + i}` })) });
    await producer.disconnect();
  }

  function groupConsumer(groupId: string, extra: Partial<Parameters<Kafka['consumer']>[0]> = {}): Consumer {
    const c = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500, rebalanceTimeout: 10000, ...extra });
    consumers.push(c);
    return c;
  }

  it('a Metadata request for __consumer_offsets (auto-creation allowed) creates it with the offsets settings', async () => {
    const conn = new Connection({ host: '127.0.0.1', port: brokers[0]!.port, clientId: 'md' });
    await conn.connect();
    try {
      const md = await waitFor(async () => {
        const r = await conn.send(Metadata, { topics: [{ name: '__consumer_offsets' }], allowAutoTopicCreation: true });
        const t = r.topics[0]!;
        return t.errorCode === 0 && t.partitions.length > 0 && t.partitions.every((p) => p.leaderId >= 0) ? t : null;
      }, 20_000, '__consumer_offsets online');
      expect(md.isInternal).toBe(true);
      expect(md.partitions).toHaveLength(5);
      expect(md.partitions.every((p) => p.replicaNodes.length === 2)).toBe(true);
      expect(await brokers[0]!.server.zk.getTopicConfig('__consumer_offsets')).toMatchObject({ 'cleanup.policy': 'compact' });
    } finally {
      await conn.close();
    }
  }, 30_000);

  it('two kafkajs members read everything; offsets survive a broker restart; fetchOffsets, describeGroups, listGroups answer', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'kjs', numPartitions: 6, replicationFactor: 2 }], waitForLeaders: true });
    await produce('kjs', 0, 600);
    const seen: string[] = [];
    const members = [groupConsumer('g-kjs'), groupConsumer('g-kjs')];
    for (const c of members) {
      await c.connect();
      await c.subscribe({ topic: 'kjs', fromBeginning: true });
      await c.run({ autoCommitInterval: 200, eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
    }
    await waitFor(() => new Set(seen).size === 600, 30_000, 'kafkajs group read 600');
    const described = await admin.describeGroups(['g-kjs']);
    expect(described.groups[0]).toMatchObject({ groupId: 'g-kjs', state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner' });
    expect(described.groups[0]!.members).toHaveLength(2);
    expect((await admin.listGroups()).groups).toContainEqual({ groupId: 'g-kjs', protocolType: 'consumer' });
    for (const c of members) await c.disconnect();
    await admin.disconnect();

    const committed = async () => {
      const a = kafka.admin();
      await a.connect();
      try {
        const [t] = await a.fetchOffsets({ groupId: 'g-kjs', topics: ['kjs'] });
        return Object.fromEntries(t!.partitions.map((p) => [p.partition, Number(p.offset)]));
      } finally {
        await a.disconnect();
      }
    };
    const ends = Object.fromEntries((await (async () => {
      const a = kafka.admin();
      await a.connect();
      try {
        return await a.fetchTopicOffsets('kjs');
      } finally {
        await a.disconnect();
      }
    })()).map((o) => [o.partition, Number(o.high)]));
    const before = await committed();
    expect(before).toEqual(ends);

    // Restart both brokers (same dirs and ports): the coordinators load __consumer_offsets again.
    const restarted: TestBroker[] = [];
    for (const b of brokers) await b.stop();
    for (const [i, b] of brokers.entries()) restarted.push(await startBroker(zk, i + 1, { ...PROPS, port: String(b.port) }, b.logDir));
    brokers = restarted;
    expect(await waitFor(async () => {
      try {
        const after = await committed();
        return JSON.stringify(after) === JSON.stringify(before) ? after : null;
      } catch {
        return null;
      }
    }, 30_000, 'offsets after restart')).toEqual(before);

    // A member of the same group resumes after the committed offsets: only new records arrive.
    await produce('kjs', 600, 10);
    const again: string[] = [];
    const c = groupConsumer('g-kjs');
    await c.connect();
    await c.subscribe({ topic: 'kjs', fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void again.push(message.value!.toString()) });
    await waitFor(() => again.length >= 10, 30_000, 'new records after restart');
    await new Promise((r) => setTimeout(r, 1000));
    expect(again.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `v${600 + i}`).sort());
    await c.disconnect();
  }, 120_000);

  it('a gregor Reader and a kafkajs consumer share one group and its partitions', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'mixed', numPartitions: 4, replicationFactor: 2 }], waitForLeaders: true });
    await admin.disconnect();
    await produce('mixed', 0, 400);
    const byKafkajs: string[] = [];
    const kc = groupConsumer('g-mixed');
    await kc.connect();
    await kc.subscribe({ topic: 'mixed', fromBeginning: true });
    const kjsPartitions = new Set<number>();
    await kc.run({
      autoCommitInterval: 200,
      eachMessage: async ({ partition, message }) => {
        kjsPartitions.add(partition);
        byKafkajs.push(message.value!.toString());
      },
    });
    // kafkajs offers "RoundRobinAssigner"; the Reader offers that name too so the group has a common protocol.
    const reader = new Reader({
      brokers: bootstrap(),
      groupId: 'g-mixed',
      topic: 'mixed',
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 500,
      rebalanceTimeoutMs: 10000,
      groupBalancers: ['RoundRobinAssigner'],
      commitIntervalMs: 200,
    });
    readers.push(reader);
    const byReader: Message[] = [];
    const abort = new AbortController();
    const pump = (async () => {
      for (;;) {
        try {
          const m = await reader.fetchMessage(abort.signal);
          byReader.push(m);
          await reader.commitMessages(m);
        } catch {
          return;
        }
      }
    })();
    await waitFor(() => new Set([...byKafkajs, ...byReader.map((m) => m.value!.toString())]).size === 400 && reader.assignment().length > 0, 40_000, 'mixed group read 400');
    const readerPartitions = new Set(reader.assignment().map((a) => a.partition));
    expect(readerPartitions.size).toBeGreaterThan(0);
    expect(readerPartitions.size).toBeLessThan(4);
    const desc = await (async () => {
      const a = kafka.admin();
      await a.connect();
      try {
        return (await a.describeGroups(['g-mixed'])).groups[0]!;
      } finally {
        await a.disconnect();
      }
    })();
    expect(desc.members).toHaveLength(2);
    expect(desc.protocol).toBe('RoundRobinAssigner');
    abort.abort();
    await pump;
    await reader.close();
    await kc.disconnect();
  }, 90_000);
});
