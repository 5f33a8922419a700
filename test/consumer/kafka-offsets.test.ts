import { Kafka, logLevel, type Admin as KafkajsAdmin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '@gregor/common';
import { Admin, KafkaClient, KafkaOffsetStore, Producer } from '@gregor/client';
import { ConsumerTimeoutError, ZookeeperConsumerConnector, type ConsumerProperties, type KafkaStream, type MessageAndMetadata } from '@gregor/consumer';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * offsets.storage=kafka and dual.commit.enabled in the ZooKeeper consumer connector (Kafka 0.8.2+),
 * against a real ZooKeeper and 2 brokers with the group coordinator: offsets land in __consumer_offsets
 * (seen through kafkajs' OffsetFetch) and not in ZooKeeper; a group moves from ZooKeeper to Kafka.
 */
const TOPIC = 'orders';
const PARTITIONS = 4;
const PER_PARTITION = 50;
const PROPS = {
  'offsets.topic.num.partitions': '5',
  'offsets.topic.replication.factor': '2',
  'default.replication.factor': '2',
  'group.initial.rebalance.delay.ms': '0',
};

describe('ZooKeeper consumer connector with offsets.storage=kafka', () => {
  let zk: TestZooKeeper;
  let brokers: TestBroker[] = [];
  let client: KafkaClient;
  let zkClient: ZkClient;
  let kafkaZk: KafkaZkClient;
  let admin: KafkajsAdmin;
  const all = new Set<string>();

  const props = (group: string, id: string, extra: Record<string, string>): ConsumerProperties => ({
    'group.id': group,
    'consumer.id': id,
    'zookeeper.connect': zk.connectString,
    'auto.offset.reset': 'smallest',
    'consumer.timeout.ms': '1500',
    'rebalance.backoff.ms': '300',
    'offsets.channel.backoff.ms': '200',
    ...extra,
  });

  const logger = () => (process.env.TEST_LOG ? createLogger('consumer', { level: process.env.TEST_LOG }) : silentLogger());

  async function start(p: ConsumerProperties): Promise<{ connector: ZookeeperConsumerConnector; stream: KafkaStream }> {
    const connector = await ZookeeperConsumerConnector.create(p, { logger: logger() });
    const { [TOPIC]: streams } = await connector.createMessageStreams({ [TOPIC]: 1 });
    return { connector, stream: streams![0]! };
  }

  /** Exactly n messages (fails on a consumer timeout before that). */
  async function take(stream: KafkaStream, n: number): Promise<MessageAndMetadata[]> {
    const out: MessageAndMetadata[] = [];
    const it = stream.iterator();
    while (out.length < n) {
      const r = await it.next();
      if (r.done) throw new Error(`stream ended after ${out.length} of ${n}`);
      out.push(r.value);
    }
    return out;
  }

  /** Everything until `consumer.timeout.ms` passes without a message. */
  async function drain(stream: KafkaStream): Promise<MessageAndMetadata[]> {
    const out: MessageAndMetadata[] = [];
    const it = stream.iterator();
    for (;;) {
      try {
        const r = await it.next();
        if (r.done) return out;
        out.push(r.value);
      } catch (error) {
        if (error instanceof ConsumerTimeoutError) return out;
        throw error;
      }
    }
  }

  const values = (ms: readonly MessageAndMetadata[]) => ms.map((m) => m.value!.toString());

  /** The next offset per partition after what was read (partitions not read: absent). */
  function nextOffsets(ms: readonly MessageAndMetadata[], base: readonly number[] = []): number[] {
    const out = Array.from({ length: PARTITIONS }, (_, p) => base[p] ?? -1);
    for (const m of ms) out[m.partition] = Math.max(out[m.partition]!, m.offset + 1);
    return out;
  }

  /** Committed offsets in Kafka, through kafkajs' OffsetFetch (-1: none). */
  async function kafkaOffsets(group: string): Promise<number[]> {
    const [t] = await admin.fetchOffsets({ groupId: group, topics: [TOPIC] });
    const out = Array.from({ length: PARTITIONS }, () => -2);
    for (const p of t!.partitions) out[p.partition] = Number(p.offset);
    return out;
  }

  async function zkOffsets(group: string): Promise<number[]> {
    const out: number[] = [];
    for (let p = 0; p < PARTITIONS; p++) {
      const v = await kafkaZk.getConsumerOffset(group, TOPIC, p);
      out.push(v === null ? -1 : Number(v));
    }
    return out;
  }

  /** The first offset read per partition (-1: none read). */
  function firstOffsets(ms: readonly MessageAndMetadata[]): number[] {
    const out = Array.from({ length: PARTITIONS }, () => -1);
    for (const m of ms) if (out[m.partition] === -1) out[m.partition] = m.offset;
    return out;
  }

  beforeAll(async () => {
    zk = await startZooKeeper();
    brokers = [await startBroker(zk, 1, PROPS), await startBroker(zk, 2, PROPS)];
    client = new KafkaClient({ brokers: brokers.map((b) => b.bootstrap), metadataMaxAgeMs: 1000 });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 2 }]);
    expect(r!.errorCode).toBe(0);
    const producer = new Producer(client, { acks: -1, retryBackoffMs: 100, retryBackoffMaxMs: 500, deliveryTimeoutMs: 30_000 });
    for (let p = 0; p < PARTITIONS; p++) {
      const batch = Array.from({ length: PER_PARTITION }, (_, i) => `p${p}-${i}`);
      await producer.send({ topic: TOPIC, messages: batch.map((v) => ({ key: v, value: v, partition: p })) });
      for (const v of batch) all.add(v);
    }
    zkClient = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 10_000, operationTimeoutMs: 30_000, logger: silentLogger() });
    kafkaZk = new KafkaZkClient(zkClient);
    const kafka = new Kafka({ clientId: 'kjs', brokers: brokers.map((b) => b.bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
  }, 60_000);

  afterAll(async () => {
    await admin?.disconnect().catch(() => {});
    await zkClient?.close().catch(() => {});
    await client?.close().catch(() => {});
    for (const b of brokers) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });

  it('commits to the group coordinator only (dual commit off); a new member of the group resumes right after', async () => {
    const group = 'kafka-only';
    const kafkaOnly = { 'offsets.storage': 'kafka', 'dual.commit.enabled': 'false', 'auto.commit.enable': 'false' };
    const t0 = Date.now();
    const a = await start(props(group, 'a', kafkaOnly));
    const first = await take(a.stream, 120);
    await a.connector.commitOffsets();
    const committed = a.connector.ownedPartitions().map((p) => p.consumedOffset);
    await a.connector.shutdown();
    const firstMs = Date.now() - t0;

    expect(committed).toEqual(nextOffsets(first, [0, 0, 0, 0]));
    expect(await kafkaOffsets(group)).toEqual(committed);
    expect(await zkOffsets(group)).toEqual([-1, -1, -1, -1]);

    const t1 = Date.now();
    const b = await start(props(group, 'b', kafkaOnly));
    const rest = await drain(b.stream);
    await b.connector.shutdown();
    console.log(`kafka offsets: member a read 120 + commit + shutdown in ${firstMs} ms; member b resumed and drained ${rest.length} in ${Date.now() - t1} ms (incl. 1.5 s consumer timeout)`);

    expect(firstOffsets(rest)).toEqual(committed.map((o) => (o < PER_PARTITION ? o : -1)));
    const read = [...values(first), ...values(rest)];
    expect(read.length).toBe(all.size); // nothing read twice
    expect(new Set(read)).toEqual(all); // nothing skipped
  }, 40_000);

  it('moves a group from ZooKeeper to Kafka as in 0.8.2: dual commit resumes from ZooKeeper and writes both', async () => {
    const group = 'migrating';
    // 1. A group on offsets.storage=zookeeper.
    const z = await start(props(group, 'z', { 'auto.commit.enable': 'false' }));
    const phase1 = await take(z.stream, 70);
    await z.connector.commitOffsets();
    await z.connector.shutdown();
    const zkAfter1 = nextOffsets(phase1, [0, 0, 0, 0]);
    expect(await zkOffsets(group)).toEqual(zkAfter1);
    expect(await kafkaOffsets(group)).toEqual([-1, -1, -1, -1]);

    // 2. Restarted with offsets.storage=kafka and dual commit: starts from the ZooKeeper offsets; the
    // final auto-commit on shutdown writes both.
    const d = await start(props(group, 'd', { 'offsets.storage': 'kafka', 'dual.commit.enabled': 'true', 'auto.commit.interval.ms': '60000' }));
    const phase2 = await take(d.stream, 60);
    await d.connector.shutdown();
    expect(firstOffsets(phase2).every((o, p) => o === -1 || o === zkAfter1[p])).toBe(true);
    const after2 = nextOffsets(phase2, zkAfter1);
    expect(await kafkaOffsets(group)).toEqual(after2);
    expect(await zkOffsets(group)).toEqual(after2);

    // 3. Dual commit off (the migration's last step): resumes from Kafka, ZooKeeper keeps the old offsets.
    const k = await start(props(group, 'k', { 'offsets.storage': 'kafka', 'dual.commit.enabled': 'false', 'auto.commit.enable': 'false' }));
    const phase3 = await drain(k.stream);
    await k.connector.commitOffsets();
    await k.connector.shutdown();
    expect(firstOffsets(phase3).every((o, p) => o === -1 || o === after2[p])).toBe(true);
    expect(await kafkaOffsets(group)).toEqual([PER_PARTITION, PER_PARTITION, PER_PARTITION, PER_PARTITION]);
    expect(await zkOffsets(group)).toEqual(after2);

    const read = [...values(phase1), ...values(phase2), ...values(phase3)];
    expect(read.length).toBe(all.size);
    expect(new Set(read)).toEqual(all);
  }, 40_000);

  it('commitOffsets() follows the coordinator to another broker when its broker shuts down', async () => {
    const group = 'failover';
    const m = await start(props(group, 'm', { 'offsets.storage': 'kafka', 'dual.commit.enabled': 'false', 'auto.commit.enable': 'false', 'offsets.channel.backoff.ms': '500' }));
    const before = await take(m.stream, 30);
    await m.connector.commitOffsets();
    const coordinator = await new KafkaOffsetStore(client, group).coordinator();
    const victim = brokers.find((b) => b.server.brokerId === coordinator)!;
    await victim.stop();
    const after = await take(m.stream, 30);
    const t0 = Date.now();
    await m.connector.commitOffsets();
    const commitMs = Date.now() - t0;
    const committed = m.connector.ownedPartitions().map((p) => p.consumedOffset);
    await m.connector.shutdown();
    const moved = await new KafkaOffsetStore(client, group).coordinator();
    console.log(`coordinator ${coordinator} shut down: commitOffsets() reached coordinator ${moved} in ${commitMs} ms`);
    expect(moved).not.toBe(coordinator);
    expect(committed).toEqual(nextOffsets([...before, ...after], [0, 0, 0, 0]));
    expect(await kafkaOffsets(group)).toEqual(committed);
  }, 40_000);
});
