import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { startAdminServer, type AdminServer } from '@gregor/admin';
import { Admin, Consumer, KafkaClient, Producer, Reader } from '@gregor/client';
import { ZookeeperConsumerConnector } from '@gregor/consumer';
import { CompressionType, encodeRecordBatch } from '@gregor/protocol';
import { CODEC_TYPE, storedBatches } from '../support/codec-topics.js';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const TOPIC = 'bomb';
/** Inflates past every reader's default cap (the larger of its batch limit and 50 MiB). */
const BOMB_BYTES = 64 << 20;
const LIMIT = /52428800-byte decompression limit/;

/**
 * A zstd batch of a few KiB that inflates to 64 MiB, stored by a real broker (message.max.bytes counts the
 * compressed size): each reader refuses it with a clear CORRUPT_MESSAGE error at its cap, and the records
 * before it are still read.
 */
describe('a decompression bomb on a real broker, refused by every reader', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;
  let http: AdminServer;
  const base = Date.now() - 60_000;

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.num.partitions': '2', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '100' });
    client = new KafkaClient({ brokers: broker.bootstrap });
    http = await startAdminServer(broker.server, { host: '127.0.0.1', port: 0, logger: silentLogger() });
    const [created] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'compact', 'segment.bytes': '8192' } }]);
    expect(created!.errorCode).toBe(0);
    const producer = new Producer(client, { compression: 'zstd', retries: 0 });
    await producer.send({ topic: TOPIC, messages: ['a', 'b', 'c'].map((k, i) => ({ key: k, value: `value-${k}`, timestamp: base + i })) });
    // A producer's bomb is refused by the leader's record validation (walking its records inflates it under a
    // cap), so the bomb is put in the log as replication would bring it from a leader that stored it before
    // validation existed: the readers below must still defend themselves.
    await expect(producer.send({ topic: TOPIC, messages: [{ key: 'bomb', value: Buffer.alloc(BOMB_BYTES), timestamp: base + 1000 }] })).rejects.toMatchObject({ code: 2 });
    const log = broker.server.logManager.getLog(TOPIC, 0)!;
    expect(log.logEndOffset).toBe(3);
    const bomb = encodeRecordBatch({
      baseOffset: 3,
      partitionLeaderEpoch: broker.server.replicaManager.getPartition(TOPIC, 0)!.leaderEpoch,
      compression: CompressionType.zstd,
      firstTimestamp: base + 1000,
      records: [{ key: Buffer.from('bomb'), value: Buffer.alloc(BOMB_BYTES), headers: [], timestamp: base + 1000 }],
    });
    log.appendAsFollower(bomb);
    // More writes roll segments, so the bomb sits in a segment the log cleaner works on.
    const plain = new Producer(client);
    for (let i = 0; i < 30; i++) await plain.send({ topic: TOPIC, messages: [{ key: `after-${i % 5}`, value: `${i}`.repeat(1000), timestamp: base + 2000 + i }] });
  });
  afterAll(async () => {
    await http?.close();
    await client?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('the bomb is a small zstd batch at offset 3', () => {
    const bomb = storedBatches(broker.logDir, TOPIC).find((b) => b.baseOffset === 3)!;
    expect(bomb).toMatchObject({ records: 1, compression: CODEC_TYPE.zstd });
    expect(broker.server.logManager.getLog(TOPIC, 0)!.read(3, 1, 4, true).records.length).toBeLessThan(64 * 1024);
  });

  it("gregor's Consumer hands out the records before it, then fails with CORRUPT_MESSAGE naming the partition", async () => {
    const got: string[] = [];
    const consuming = (async () => {
      for await (const r of new Consumer(client, { maxWaitMs: 50, retries: 0 }).consume({ topic: TOPIC, untilEnd: true })) got.push(r.key!.toString());
    })();
    await expect(consuming).rejects.toMatchObject({ code: 2, message: expect.stringMatching(LIMIT) });
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('the Reader hands out the records before it, then fetchMessage rejects with CORRUPT_MESSAGE', async () => {
    const reader = new Reader({ brokers: broker.bootstrap, groupId: 'bomb-reader', topic: TOPIC, sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, maxWaitMs: 50 });
    try {
      const got = [];
      for (let i = 0; i < 3; i++) got.push((await reader.fetchMessage()).key!.toString());
      expect(got).toEqual(['a', 'b', 'c']);
      await expect(reader.fetchMessage()).rejects.toMatchObject({ code: 2, message: expect.stringMatching(LIMIT) });
    } finally {
      await reader.close();
    }
  });

  it('the ZooKeeper connector hands out the records before it, then its iterator throws CORRUPT_MESSAGE', async () => {
    const connector = await ZookeeperConsumerConnector.create(
      { 'group.id': 'bomb-zk', 'zookeeper.connect': zk.connectString, 'auto.offset.reset': 'smallest', 'consumer.timeout.ms': '20000' },
      { logger: silentLogger() },
    );
    try {
      const [stream] = (await connector.createMessageStreams({ [TOPIC]: 1 }))[TOPIC]!;
      const got: string[] = [];
      const reading = (async () => {
        for await (const m of stream!) got.push(m.key!.toString());
      })();
      await expect(reading).rejects.toMatchObject({ code: 2, message: expect.stringMatching(/bomb-0 at fetch offset \d+: .*52428800-byte decompression limit/) });
      expect(got).toEqual(['a', 'b', 'c']);
    } finally {
      await connector.shutdown();
    }
  });

  it('the HTTP record read answers an error naming the limit', async () => {
    const ok = await fetch(`http://127.0.0.1:${http.port}/v1/topics/${TOPIC}/partitions/0/records?offset=0&limit=3`);
    expect(ok.status).toBe(200);
    const res = await fetch(`http://127.0.0.1:${http.port}/v1/topics/${TOPIC}/partitions/0/records?offset=3&limit=1`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    const body = (await res.json()) as { error: { message: string; kafkaErrorCode?: number } };
    expect(body.error).toMatchObject({ kafkaErrorCode: 2, message: expect.stringMatching(LIMIT) });
  });

  it('ListOffsets by a timestamp inside it answers CORRUPT_MESSAGE (kcat -Q: "Invalid message"), and before it still works', async () => {
    const before = await kcat(['-b', broker.bootstrap, '-Q', '-t', `${TOPIC}:0:${base + 1}`]);
    expect(before.stdout.toString()).toMatch(/bomb \[0\]\s+offset 1\b/);
    const q = await kcat(['-b', broker.bootstrap, '-Q', '-t', `${TOPIC}:0:${base + 1000}`], undefined, 60_000, { allowCodes: [1] });
    expect(`${q.stdout}${q.stderr}`).toMatch(/offsets_for_times failed: Broker: Invalid message/);
  });

  it('the log cleaner skips the log (the pass logs the error) and leaves it untouched', async () => {
    const log = broker.server.logManager.getLog(TOPIC, 0)!;
    await waitFor(() => log.highWatermark === log.logEndOffset, 10_000, 'high watermark');
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    const before = storedBatches(broker.logDir, TOPIC);
    await expect(broker.server.logCleaner.cleanAll()).resolves.toBeUndefined();
    expect(() => broker.server.logCleaner.clean(log)).toThrow(expect.objectContaining({ code: 2, message: expect.stringMatching(LIMIT) }));
    expect(storedBatches(broker.logDir, TOPIC)).toEqual(before);
  });
});
