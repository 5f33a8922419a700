import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { ConsumerTimeoutError, ZookeeperConsumerConnector } from '@gregor/consumer';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * A slow application must not make the connector buffer without bound: each stream queue holds at most
 * queued.max.message.chunks chunks (plus one per partition of a fetch in flight), each at most
 * fetch.message.max.bytes. Also: consumer.timeout.ms, commit on shutdown, restart from the committed offset.
 */
const TOPIC = 'bulk';
const PARTITIONS = 3;
const FETCH_SIZE = 16_384;
const CHUNKS = 2;
const COUNT = 30_000;

describe('consumer connector back-pressure (ZooKeeper + in-process broker)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;

  const props = (extra: Record<string, string> = {}) => ({
    'group.id': 'slow',
    'zookeeper.connect': zk.connectString,
    'auto.offset.reset': 'smallest',
    'fetch.message.max.bytes': String(FETCH_SIZE),
    'queued.max.message.chunks': String(CHUNKS),
    'auto.commit.enable': 'false',
    ...extra,
  });

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1);
    client = new KafkaClient({ brokers: broker.bootstrap });
    await new Admin(client).createTopics([{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    const producer = new Producer(client, { acks: 1 });
    const value = 'x'.repeat(90);
    // 100 records a send: batches of ~3.5 KB, well under the fetch size.
    for (let i = 0; i < COUNT; i += 100) {
      await producer.send({ topic: TOPIC, messages: Array.from({ length: 100 }, (_, k) => ({ key: String(i + k), value: `${String(i + k).padStart(8, '0')}${value}` })) });
    }
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await broker?.stop();
    removeDir(broker?.logDir ?? '/nonexistent');
    await zk?.stop();
  });

  it('a slow reader keeps the queued bytes bounded; all records arrive; timeout, commit on shutdown and restart work', async () => {
    const connector = await ZookeeperConsumerConnector.create(props({ 'consumer.timeout.ms': '1500' }), { logger: silentLogger() });
    const [stream] = (await connector.createMessageStreams({ [TOPIC]: 1 }))[TOPIC]!;
    const it = stream![Symbol.asyncIterator]();
    const bound = (CHUNKS + PARTITIONS) * FETCH_SIZE;
    let maxQueued = 0;
    let maxAhead = 0;
    let maxChunks = 0;
    const sample = () => {
      maxQueued = Math.max(maxQueued, connector.stats().queuedBytes);
      maxChunks = Math.max(maxChunks, connector.stats().queuedChunks);
      const ahead = connector.ownedPartitions().reduce((sum, p) => sum + Math.max(0, p.fetchedOffset - p.consumedOffset), 0);
      maxAhead = Math.max(maxAhead, ahead);
    };
    const sampler = setInterval(sample, 20);
    // Slow phase: 200 records, 10 ms each, while the fetchers could otherwise pull all 3 MB.
    let read = 0;
    for (; read < 200; read++) {
      expect((await it.next()).done).toBe(false);
      await new Promise((r) => setTimeout(r, 10));
    }
    sample();
    clearInterval(sampler);
    console.log(`slow reader: at most ${maxQueued} bytes in ${maxChunks} chunks queued (bound ${bound}), ${maxAhead} records fetched ahead of the reader`);
    expect(maxQueued).toBeGreaterThan(0);
    expect(maxQueued).toBeLessThanOrEqual(bound);
    expect(maxChunks).toBeLessThanOrEqual(CHUNKS + PARTITIONS);
    // Records fetched but not handed out: no more than the queue can hold (~100 records of ~100 bytes per 16 KiB chunk).
    expect(maxAhead).toBeLessThan(((CHUNKS + PARTITIONS + PARTITIONS) * FETCH_SIZE) / 100);
    // Fast phase: the rest, then consumer.timeout.ms ends the wait with a typed error.
    const offsets = new Set<string>();
    for (;;) {
      try {
        const r = await it.next();
        if (r.done) break;
        offsets.add(`${r.value.partition}-${r.value.offset}`);
        read++;
      } catch (error) {
        expect(error).toBeInstanceOf(ConsumerTimeoutError);
        break;
      }
    }
    expect(read).toBe(COUNT);
    await connector.commitOffsets();
    await connector.shutdown();
    await connector.shutdown(); // idempotent
    expect((await it.next()).done).toBe(true);

    // A new member starts from the committed offsets: nothing left to read.
    const again = await ZookeeperConsumerConnector.create(props({ 'consumer.timeout.ms': '1000' }), { logger: silentLogger() });
    const [s2] = (await again.createMessageStreams({ [TOPIC]: 1 }))[TOPIC]!;
    await expect(s2![Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(ConsumerTimeoutError);
    await waitFor(() => again.ownedPartitions().length === PARTITIONS, 5000, 'owns all');
    expect(again.ownedPartitions().map((p) => p.consumedOffset).reduce((a, b) => a + b, 0)).toBe(COUNT);
    await again.shutdown();
  }, 60_000);
});
