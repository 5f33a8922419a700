import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** kafkajs 2.2.4 (admin and producer) against one gregor broker; results read back with kcat. */
describe('kafkajs against one broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let kafka: Kafka;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1);
    kafka = new Kafka({ clientId: 'gregor-it', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });
  });
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('admin: createTopics, fetchTopicMetadata, fetchTopicOffsets, listTopics, deleteTopics', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true })).toBe(true);
      // Creating it again is refused (createTopics answers false for an existing topic).
      expect(await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }] })).toBe(false);
      await expect(admin.createTopics({ topics: [{ topic: 'bad/name', numPartitions: 1 }] })).rejects.toThrow();
      const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
      expect(md.topics[0]!.name).toBe('orders');
      expect(md.topics[0]!.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2]);
      for (const p of md.topics[0]!.partitions) {
        expect(p.leader).toBe(1);
        expect(p.replicas).toEqual([1]);
        expect(p.isr).toEqual([1]);
      }
      expect(await admin.listTopics()).toContain('orders');
      const offsets = await admin.fetchTopicOffsets('orders');
      expect(offsets.map((o) => [o.partition, o.offset, o.low, o.high]).sort()).toEqual([
        [0, '0', '0', '0'],
        [1, '0', '0', '0'],
        [2, '0', '0', '0'],
      ]);
      await admin.createPartitions({ topicPartitions: [{ topic: 'orders', count: 5 }] });
      const md2 = await admin.fetchTopicMetadata({ topics: ['orders'] });
      expect(md2.topics[0]!.partitions.length).toBe(5);
      await admin.deleteTopics({ topics: ['orders'], timeout: 10_000 });
      expect(await admin.listTopics()).not.toContain('orders');
      const cluster = await admin.describeCluster();
      expect(cluster.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: broker.port }]);
      expect(cluster.controller).toBe(1);
    } finally {
      await admin.disconnect();
    }
  });

  it('producer with acks -1: every record is acknowledged with its offset and kcat reads them all back', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'payments', numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
    await admin.disconnect();
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const sent: string[] = [];
    try {
      for (let batch = 0; batch < 10; batch++) {
        const messages = Array.from({ length: 100 }, (_, i) => {
          const n = batch * 100 + i;
          sent.push(`${n % 7}:${n}`);
          return { key: String(n % 7), value: String(n), headers: { seq: String(n) } };
        });
        const meta = await producer.send({ topic: 'payments', acks: -1, messages });
        for (const m of meta) expect(m.errorCode).toBe(0);
      }
    } finally {
      await producer.disconnect();
    }
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', 'payments', '-e', '-q', '-f', '%k:%s\n']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString().trim().split('\n').sort()).toEqual(sent.sort());
    // kafkajs partitions keys with Java's murmur2: each key lives in exactly one partition.
    const byPartition = await kcat(['-b', broker.bootstrap, '-C', '-t', 'payments', '-e', '-q', '-f', '%p %k\n']);
    const partitionOf = new Map<string, string>();
    for (const line of byPartition.stdout.toString().trim().split('\n')) {
      const [p, k] = line.split(' ') as [string, string];
      expect(partitionOf.get(k) ?? p).toBe(p);
      partitionOf.set(k, p);
    }
  });

  it('kafkajs sees the offsets of gzip batches kcat wrote', async () => {
    const input = Array.from({ length: 300 }, (_, i) => `line-${i}`).join('\n') + '\n';
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'from-kcat', '-z', 'gzip'], input)).code).toBe(0);
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets('from-kcat');
    await admin.disconnect();
    expect(offsets.reduce((n, o) => n + Number(o.high), 0)).toBe(300);
  });
});
