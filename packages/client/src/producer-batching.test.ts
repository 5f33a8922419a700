import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Produce, decodeRecordBatch, type ProduceRequest } from '@gregor/protocol';
import { FakeCluster } from '../test/fake-cluster.js';
import { KafkaClient } from './cluster.js';
import { Producer } from './producer.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(leaders: number[]): Promise<{ cluster: FakeCluster; client: KafkaClient }> {
  const cluster = (await FakeCluster.start([1])).serveData();
  cleanup.push(() => cluster.close());
  cluster.addTopic('t', leaders);
  const client = new KafkaClient({ brokers: cluster.bootstrap, retryBackoffMs: 5, retryBackoffMaxMs: 20 });
  cleanup.push(() => client.close());
  return { cluster, client };
}

const produceRequests = (cluster: FakeCluster) => cluster.broker(1).requestsOf(Produce).map((r) => r.body as ProduceRequest);
const values = (cluster: FakeCluster, partition: number) => (cluster.logs.get(`t-${partition}`) ?? []).flatMap((b) => decodeRecordBatch(b).records.map((r) => r.value!.toString()));

describe('Producer batching', () => {
  it('splits a partition into batches of batch.size, one request in flight per partition, records in order', async () => {
    const { cluster, client } = await setup([1]);
    const producer = new Producer(client, { batchSize: 4096, retryBackoffMs: 5 });
    const messages = Array.from({ length: 40 }, (_, i) => ({ value: `${String(i).padStart(3, '0')}${'x'.repeat(500)}`, partition: 0 }));
    const results = await producer.send({ topic: 't', messages });
    expect(results.map((r) => r.offset)).toEqual(messages.map((_, i) => i));
    const batches = cluster.logs.get('t-0')!;
    expect(batches.length).toBeGreaterThanOrEqual(5); // ~7 records of ~520 bytes per 4 KiB batch
    for (const b of batches) expect(b.length).toBeLessThanOrEqual(4096 + 600);
    // One batch per request for the partition: the next waits for the answer to the previous one.
    for (const r of produceRequests(cluster)) expect(r.topicData[0]!.partitionData).toHaveLength(1);
    expect(values(cluster, 0)).toEqual(messages.map((m) => m.value));
  });

  it('linger.ms gathers concurrent sends into one request', async () => {
    const { cluster, client } = await setup([1, 1]);
    const producer = new Producer(client, { lingerMs: 100 });
    const first = producer.send({ topic: 't', messages: [{ value: 'a', partition: 0 }] });
    await new Promise((r) => setTimeout(r, 20));
    const second = producer.send({ topic: 't', messages: [{ value: 'b', partition: 0 }, { value: 'c', partition: 1 }] });
    await Promise.all([first, second]);
    expect(produceRequests(cluster)).toHaveLength(1);
    expect(values(cluster, 0)).toEqual(['a', 'b']);
    expect(values(cluster, 1)).toEqual(['c']);
  });

  it('gives each record of interleaved sends its own offset when their records share batches', async () => {
    const { cluster, client } = await setup([1, 1]);
    const producer = new Producer(client, { lingerMs: 100 });
    // One batch per partition, holding runs of both sends: p0 = a0 a2 b0 b1, p1 = a1 a3.
    const a = producer.send({ topic: 't', messages: [0, 1, 0, 1].map((partition, i) => ({ value: `a${i}`, partition })) });
    const b = producer.send({ topic: 't', messages: [{ value: 'b0', partition: 0 }, { value: 'b1', partition: 0 }] });
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.map((r) => [r.partition, r.offset])).toEqual([[0, 0], [1, 0], [0, 1], [1, 1]]);
    expect(rb.map((r) => [r.partition, r.offset])).toEqual([[0, 2], [0, 3]]);
    expect(values(cluster, 0)).toEqual(['a0', 'a2', 'b0', 'b1']);
    expect(values(cluster, 1)).toEqual(['a1', 'a3']);
  });

  it('sends what the messages held when send() was called, though the caller reuses them at once', async () => {
    const { cluster, client } = await setup([1]);
    const producer = new Producer(client);
    const message = { key: 'k1', value: 'v1' };
    const first = producer.send({ topic: 't', messages: [message] }); // its metadata is still to come
    message.key = 'k2';
    message.value = 'v2';
    await Promise.all([first, producer.send({ topic: 't', messages: [message] })]);
    const records = (cluster.logs.get('t-0') ?? []).flatMap((x) => decodeRecordBatch(x).records);
    expect(records.map((r) => `${r.key}=${r.value}`)).toEqual(['k1=v1', 'k2=v2']);
  });

  it('flush() sends lingering batches at once', async () => {
    const { cluster, client } = await setup([1]);
    const producer = new Producer(client, { lingerMs: 60_000 });
    const sent = producer.send({ topic: 't', messages: [{ value: 'v' }] });
    await new Promise((r) => setTimeout(r, 20));
    expect(produceRequests(cluster)).toHaveLength(0);
    await producer.flush();
    expect((await sent)[0]!.offset).toBe(0);
  });

  it('flush() right after send() waits for a send still fetching its metadata', async () => {
    const { cluster, client } = await setup([1]);
    const producer = new Producer(client, { lingerMs: 60_000 });
    const sent = producer.send({ topic: 't', messages: [{ value: 'v' }] });
    await producer.flush(); // before the metadata answer: the record is not in a batch yet
    expect(produceRequests(cluster)).toHaveLength(1);
    expect((await sent)[0]!.offset).toBe(0);
  });

  it('moves the sticky partition of keyless records on when a batch fills', async () => {
    const { cluster, client } = await setup([1, 1, 1, 1]);
    const producer = new Producer(client, { batchSize: 2048 });
    const results = await producer.send({ topic: 't', messages: Array.from({ length: 40 }, (_, i) => ({ value: `${i}${'y'.repeat(400)}` })) });
    const used = new Set(results.map((r) => r.partition));
    expect(used.size).toBeGreaterThan(1);
    // Keyless records stick to a partition for a whole batch: runs, not alternation.
    const switches = results.filter((r, i) => i > 0 && r.partition !== results[i - 1]!.partition).length;
    expect(switches).toBeLessThan(results.length / 3);
    expect(cluster.logEndOffset('t', 0) + cluster.logEndOffset('t', 1) + cluster.logEndOffset('t', 2) + cluster.logEndOffset('t', 3)).toBe(40);
  });

  it('keeps the order of a partition across a retried batch', async () => {
    const { cluster, client } = await setup([1]);
    let failures = 1;
    cluster.fault = (_n, api) => (api === 'produce' && failures-- > 0 ? ErrorCode.NOT_ENOUGH_REPLICAS : undefined);
    const producer = new Producer(client, { batchSize: 1024, retryBackoffMs: 5, retryBackoffMaxMs: 10 });
    const messages = Array.from({ length: 20 }, (_, i) => ({ value: `${i}-${'z'.repeat(200)}`, partition: 0 }));
    const results = await producer.send({ topic: 't', messages });
    expect(results.map((r) => r.offset)).toEqual(messages.map((_, i) => i));
    expect(values(cluster, 0)).toEqual(messages.map((m) => m.value));
  });
});
