import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '@gregor/common';
import { Admin, Consumer, KafkaClient, Producer, Reader } from '@gregor/client';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const PARTITIONS = 3;
const N = 30_000;

/**
 * Consumer and Reader keep one Fetch in flight per partition while the records already fetched are handed out.
 * With fetch sizes small enough to need hundreds of fetches and a small Reader queue, a fast and a slow reader
 * each get every partition contiguous from offset 0, in order, exactly once.
 */
describe('fetching ahead keeps every partition in order, exactly once', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;
  const topic = 'fetch-ahead';

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.num.partitions': '1', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '0' });
    client = new KafkaClient({ brokers: broker.bootstrap });
    const [r] = await new Admin(client).createTopics([{ name: topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    expect(r!.errorCode).toBe(0);
    await client.ensureTopics([topic]);
    const producer = new Producer(client, { acks: 1 });
    for (let i = 0; i < N; i += 500) {
      await producer.send({ topic, messages: Array.from({ length: 500 }, (_, j) => ({ partition: (i / 500) % PARTITIONS, value: `v${i + j}` })) });
    }
    await producer.close();
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  const expectContiguous = (seen: number[][]) => {
    expect(seen.reduce((n, offsets) => n + offsets.length, 0)).toBe(N);
    for (const [p, offsets] of seen.entries()) {
      const firstGap = offsets.findIndex((offset, i) => offset !== i);
      expect(firstGap, `partition ${p}: offset ${offsets[firstGap]} at position ${firstGap}`).toBe(-1);
    }
  };

  it.each([false, true])('Consumer.consume (slow reader: %s)', async (slow) => {
    const seen: number[][] = Array.from({ length: PARTITIONS }, () => []);
    let n = 0;
    for await (const r of new Consumer(client, { maxPartitionFetchBytes: 4096, maxBytes: 16384 }).consume({ topic, untilEnd: true })) {
      seen[r.partition]!.push(r.offset);
      if (slow && ++n % 1000 === 0) await sleep(2);
    }
    expectContiguous(seen);
  }, 60_000);

  it.each([false, true])('Reader.fetchMessage with a queue of 50 (slow reader: %s)', async (slow) => {
    const reader = new Reader({ brokers: broker.bootstrap, groupId: `fetch-ahead-${slow}`, topic, maxPartitionFetchBytes: 4096, queueCapacity: 50, commitIntervalMs: 0 });
    const seen: number[][] = Array.from({ length: PARTITIONS }, () => []);
    try {
      for (let i = 0; i < N; i++) {
        const m = await reader.fetchMessage();
        seen[m.partition]!.push(m.offset);
        if (slow && i % 1000 === 0) await sleep(2);
      }
    } finally {
      await reader.close();
    }
    expectContiguous(seen);
  }, 60_000);
});
