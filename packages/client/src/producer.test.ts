import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode } from '@gregor/common';
import { CompressionType, Produce, decodeRecordBatch, encodeRecordBatch, readBatchHeader, type ProduceRequest } from '@gregor/protocol';
import { FakeCluster } from '../test/fake-cluster.js';
import { KafkaClient } from './cluster.js';
import { defaultPartition } from './partitioner.js';
import { Producer } from './producer.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(nodeIds = [1, 2]): Promise<{ cluster: FakeCluster; client: KafkaClient }> {
  const cluster = (await FakeCluster.start(nodeIds)).serveData();
  cleanup.push(() => cluster.close());
  const client = new KafkaClient({ brokers: cluster.bootstrap, retryBackoffMs: 5, retryBackoffMaxMs: 20 });
  cleanup.push(() => client.close());
  return { cluster, client };
}

const fastRetries = { retryBackoffMs: 5, retryBackoffMaxMs: 20 };

describe('Producer', () => {
  it('groups messages by partition, one batch per partition and one request per leader', async () => {
    const { cluster, client } = await setup();
    cluster.addTopic('t', [1, 2, 1]);
    cluster.append('t', 0, encodeRecordBatch({ baseOffset: 0, compression: 0, firstTimestamp: 1, records: [{ key: null, value: Buffer.from('old'), headers: [], timestamp: 1 }] }));
    const producer = new Producer(client, fastRetries);
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const results = await producer.send({ topic: 't', messages: keys.map((k) => ({ key: k, value: `v-${k}`, headers: { h: k }, timestamp: 1000 })) });

    const counts = new Map<number, number>();
    results.forEach((r, i) => {
      expect(r.partition).toBe(defaultPartition(keys[i]!, 3));
      const seen = counts.get(r.partition) ?? 0;
      expect(r.offset).toBe(seen + (r.partition === 0 ? 1 : 0));
      counts.set(r.partition, seen + 1);
    });
    // Broker 1 leads partitions 0 and 2, broker 2 partition 1: one Produce each.
    const toBroker1 = cluster.broker(1).requestsOf(Produce).map((r) => r.body as ProduceRequest);
    expect(toBroker1).toHaveLength(1);
    expect(toBroker1[0]!.topicData[0]!.partitionData.map((p) => p.index).sort()).toEqual([...counts.keys()].filter((p) => p !== 1).sort());
    expect(cluster.broker(2).requestsOf(Produce)).toHaveLength(counts.has(1) ? 1 : 0);
    expect(toBroker1[0]!.acks).toBe(-1);

    for (const [partition, n] of counts) {
      const batches = cluster.logs.get(`t-${partition}`)!;
      const batch = decodeRecordBatch(batches[batches.length - 1]!);
      expect(batch.records).toHaveLength(n);
      for (const record of batch.records) {
        const key = record.key!.toString();
        expect(defaultPartition(key, 3)).toBe(partition);
        expect(record.value!.toString()).toBe(`v-${key}`);
        expect(record.headers).toEqual([{ key: 'h', value: Buffer.from(key) }]);
        expect(record.timestamp).toBe(1000);
      }
    }
  });

  it.each([
    ['gzip', CompressionType.gzip],
    ['snappy', CompressionType.snappy],
    ['lz4', CompressionType.lz4],
    ['zstd', CompressionType.zstd],
  ] as const)('compresses batches with %s and honours explicit partitions', async (name, type) => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('z', [1, 1]);
    const producer = new Producer(client, { ...fastRetries, compression: name });
    const value = Buffer.alloc(2000, 'x');
    const results = await producer.send({ topic: 'z', messages: [{ value, partition: 1 }, { value: null, partition: 1 }] });
    expect(results.map((r) => [r.partition, r.offset])).toEqual([[1, 0], [1, 1]]);
    const stored = cluster.logs.get('z-1')![0]!;
    expect(readBatchHeader(stored).compression).toBe(type);
    expect(stored.length).toBeLessThan(500);
    const batch = decodeRecordBatch(stored);
    expect(batch.records[0]!.value).toEqual(value);
    expect(batch.records[1]!.value).toBeNull();
    await expect(producer.send({ topic: 'z', messages: [{ value: 'v', partition: 5 }] })).rejects.toMatchObject({ code: ErrorCode.INVALID_PARTITIONS });
  });

  it('sends keyless messages of one send to one sticky partition', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('s', [1, 1, 1, 1]);
    const producer = new Producer(client, fastRetries);
    const results = await producer.send({ topic: 's', messages: Array.from({ length: 10 }, (_, i) => ({ value: `${i}` })) });
    expect(new Set(results.map((r) => r.partition)).size).toBe(1);
    expect(results.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('follows a leader change: NOT_LEADER_FOR_PARTITION, metadata refresh, resend to the new leader', async () => {
    const { cluster, client } = await setup();
    cluster.addTopic('m', [1]);
    const producer = new Producer(client, fastRetries);
    await producer.send({ topic: 'm', messages: [{ value: 'first' }] });
    // The leadership moves without the client knowing: broker 1 now answers NOT_LEADER.
    cluster.moveLeader('m', 0, 2);
    const [result] = await producer.send({ topic: 'm', messages: [{ value: 'second' }] });
    expect(result).toMatchObject({ partition: 0, offset: 1 });
    expect(cluster.broker(1).requestsOf(Produce)).toHaveLength(2);
    expect(cluster.broker(2).requestsOf(Produce)).toHaveLength(1);
  });

  it('waits for a topic whose leaders are not elected yet', async () => {
    const { cluster, client } = await setup([1]);
    const producer = new Producer(client, fastRetries);
    setTimeout(() => cluster.addTopic('new', [-1]), 20);
    setTimeout(() => cluster.moveLeader('new', 0, 1), 80);
    const [result] = await producer.send({ topic: 'new', messages: [{ value: 'v' }] });
    expect(result).toMatchObject({ partition: 0, offset: 0 });
  });

  it('retries NOT_ENOUGH_REPLICAS and network failures until they pass', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('r', [1]);
    let failures = 2;
    cluster.fault = (_node, api) => (api === 'produce' && failures-- > 0 ? ErrorCode.NOT_ENOUGH_REPLICAS : undefined);
    const producer = new Producer(client, fastRetries);
    const [result] = await producer.send({ topic: 'r', messages: [{ value: 'v' }] });
    expect(result!.offset).toBe(0);
    expect(cluster.broker(1).requestsOf(Produce)).toHaveLength(3);

    let dropped = false;
    cluster.broker(1).on(Produce, (_body, request) => {
      if (!dropped) {
        dropped = true;
        request.socket.destroy();
      }
      return { throttleTimeMs: 0, responses: [{ name: 'r', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 41, logAppendTimeMs: -1, logStartOffset: 0 }] }] };
    });
    const [again] = await producer.send({ topic: 'r', messages: [{ value: 'w' }] });
    expect(again!.offset).toBe(41);
  });

  it('gives up on non-retriable errors at once and on retriable ones after deliveryTimeoutMs', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('e', [1]);
    cluster.fault = () => ErrorCode.MESSAGE_TOO_LARGE;
    const producer = new Producer(client, { ...fastRetries, deliveryTimeoutMs: 200 });
    await expect(producer.send({ topic: 'e', messages: [{ value: 'v' }] })).rejects.toMatchObject({ code: ErrorCode.MESSAGE_TOO_LARGE });
    expect(cluster.broker(1).requestsOf(Produce)).toHaveLength(1);

    cluster.fault = () => ErrorCode.NOT_ENOUGH_REPLICAS;
    const started = Date.now();
    await expect(producer.send({ topic: 'e', messages: [{ value: 'v' }] })).rejects.toMatchObject({ code: ErrorCode.NOT_ENOUGH_REPLICAS });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(cluster.broker(1).requestsOf(Produce).length).toBeGreaterThan(2);

    const bounded = new Producer(client, { ...fastRetries, retries: 2 });
    const before = cluster.broker(1).requestsOf(Produce).length;
    await expect(bounded.send({ topic: 'e', messages: [{ value: 'v' }] })).rejects.toMatchObject({ code: ErrorCode.NOT_ENOUGH_REPLICAS });
    expect(cluster.broker(1).requestsOf(Produce).length - before).toBe(3);
  });

  it('with acks=0 sends without waiting for an answer', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('z', [1]);
    const producer = new Producer(client, { ...fastRetries, acks: 0 });
    const [result] = await producer.send({ topic: 'z', messages: [{ value: 'fire' }] });
    expect(result).toMatchObject({ partition: 0, offset: -1 });
    // The broker got it (checked through a later request on the same connection).
    await client.refreshMetadata(['z']);
    expect(cluster.broker(1).requestsOf(Produce)[0]!.body).toMatchObject({ acks: 0 });
    expect(cluster.logEndOffset('z', 0)).toBe(1);
  });

  it('validates its settings', async () => {
    const { client } = await setup([1]);
    expect(() => new Producer(client, { acks: 2 as never })).toThrow(ConfigError);
    expect(() => new Producer(client, { compression: 'brotli' as never })).toThrow(ConfigError);
    expect(() => new Producer(client, { retries: -1 })).toThrow(ConfigError);
  });
});
