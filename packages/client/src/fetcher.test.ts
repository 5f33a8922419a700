import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { CompressionType, Fetch, encodeRecordBatch, type FetchRequest } from '@gregor/protocol';
import { FakeCluster } from '../test/fake-cluster.js';
import { KafkaClient } from './cluster.js';
import { Consumer, fetchPartition, type ConsumedRecord } from './fetcher.js';

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

/** Appends a batch of `values` (timestamps 1000 + i) and returns its base offset. */
function appendValues(cluster: FakeCluster, topic: string, partition: number, values: string[], gzip = false, firstTimestamp = 1000): number {
  return cluster.append(
    topic,
    partition,
    encodeRecordBatch({
      baseOffset: 0,
      compression: gzip ? CompressionType.gzip : CompressionType.none,
      firstTimestamp,
      records: values.map((v, i) => ({ key: Buffer.from(`k-${v}`), value: Buffer.from(v), headers: [{ key: 'n', value: Buffer.from(String(i)) }], timestamp: firstTimestamp + i })),
    }),
  );
}

async function collect(records: AsyncIterable<ConsumedRecord>): Promise<ConsumedRecord[]> {
  const out: ConsumedRecord[] = [];
  for await (const r of records) out.push(r);
  return out;
}

const fast = { maxWaitMs: 10, retryBackoffMs: 5, retryBackoffMaxMs: 20 };

describe('fetchPartition', () => {
  it('decodes plain and gzip batches and skips records before the fetch offset', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    appendValues(cluster, 't', 0, ['a', 'b', 'c']);
    appendValues(cluster, 't', 0, ['d', 'e'], true);
    const result = await fetchPartition(client, { topic: 't', partition: 0, offset: 1, maxWaitMs: 10 });
    expect(result.records.map((r) => [r.offset, r.value!.toString()])).toEqual([[1, 'b'], [2, 'c'], [3, 'd'], [4, 'e']]);
    expect(result.records[2]).toMatchObject({ topic: 't', partition: 0, timestamp: 1000, headers: [{ key: 'n', value: Buffer.from('0') }] });
    expect(result.records[2]!.key!.toString()).toBe('k-d');
    expect(result.highWatermark).toBe(5);
    expect(result.nextOffset).toBe(5);
    const request = cluster.broker(1).requestsOf(Fetch)[0]!.body as FetchRequest;
    expect(request).toMatchObject({ replicaId: -1, maxWaitMs: 10, minBytes: 1, topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 1 }] }] });
  });

  it('decodes batches of every codec Kafka has', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    const codecs = [CompressionType.gzip, CompressionType.snappy, CompressionType.lz4, CompressionType.zstd];
    for (const [i, compression] of codecs.entries()) {
      const value = Buffer.alloc(100_000, `codec-${compression}`);
      cluster.append('t', 0, encodeRecordBatch({ baseOffset: 0, compression, firstTimestamp: 1000, records: [{ key: Buffer.from(`k${i}`), value, headers: [], timestamp: 1000 }] }));
    }
    const result = await fetchPartition(client, { topic: 't', partition: 0, offset: 0, maxWaitMs: 10 });
    expect(result.records.map((r) => [r.key!.toString(), r.value!.equals(Buffer.alloc(100_000, `codec-${codecs[Number(r.key!.toString().slice(1))]}`))])).toEqual([
      ['k0', true],
      ['k1', true],
      ['k2', true],
      ['k3', true],
    ]);
  });

  it.each([
    ['gzip', CompressionType.gzip],
    ['snappy', CompressionType.snappy],
    ['lz4', CompressionType.lz4],
    ['zstd', CompressionType.zstd],
  ] as const)('refuses a small %s batch that inflates past maxDecompressedBytes with CORRUPT_MESSAGE naming the partition', async (_name, compression) => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    const bomb = encodeRecordBatch({ baseOffset: 0, compression, firstTimestamp: 1000, records: [{ key: null, value: Buffer.alloc(16 << 20), headers: [], timestamp: 1000 }] });
    expect(bomb.length).toBeLessThan(1 << 20);
    cluster.append('t', 0, bomb);
    await expect(fetchPartition(client, { topic: 't', partition: 0, offset: 0, maxWaitMs: 10, maxDecompressedBytes: 1 << 20 })).rejects.toMatchObject({
      code: ErrorCode.CORRUPT_MESSAGE,
      message: expect.stringMatching(/^fetch t-0 at offset 0: .*1048576-byte decompression limit/),
    });
    const consumer = new Consumer(client, { ...fast, maxDecompressedBytes: 1 << 20, retries: 0 });
    await expect(collect(consumer.consume({ topic: 't', untilEnd: true }))).rejects.toMatchObject({ code: ErrorCode.CORRUPT_MESSAGE });
  });

  it('skips a partial trailing batch and reads it on the next fetch', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    appendValues(cluster, 't', 0, ['a', 'b']);
    appendValues(cluster, 't', 0, ['c', 'd']);
    const firstSize = cluster.logs.get('t-0')![0]!.length;
    const first = await fetchPartition(client, { topic: 't', partition: 0, offset: 0, maxWaitMs: 10, maxPartitionFetchBytes: firstSize + 20 });
    expect(first.recordBytes).toBe(firstSize + 20);
    expect(first.records.map((r) => r.offset)).toEqual([0, 1]);
    expect(first.nextOffset).toBe(2);
    const second = await fetchPartition(client, { topic: 't', partition: 0, offset: first.nextOffset, maxWaitMs: 10 });
    expect(second.records.map((r) => r.value!.toString())).toEqual(['c', 'd']);
  });

  it('throws the partition error code', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    cluster.fault = () => ErrorCode.OFFSET_OUT_OF_RANGE;
    await expect(fetchPartition(client, { topic: 't', partition: 0, offset: 99 })).rejects.toMatchObject({ code: ErrorCode.OFFSET_OUT_OF_RANGE });
  });
});

describe('Consumer', () => {
  it('reads every partition from the earliest offset up to the end captured at start', async () => {
    const { cluster, client } = await setup();
    cluster.addTopic('t', [1, 2]);
    appendValues(cluster, 't', 0, ['a0', 'a1']);
    appendValues(cluster, 't', 0, ['a2'], true);
    appendValues(cluster, 't', 1, ['b0', 'b1', 'b2']);
    const consumer = new Consumer(client, fast);
    const records = consumer.consume({ topic: 't', untilEnd: true });
    const first = await records.next();
    // Appended after the start: beyond the captured end, so not read.
    appendValues(cluster, 't', 0, ['late']);
    const rest = await collect(records);
    const all = [first.value as ConsumedRecord, ...rest];
    const byPartition = (p: number) => all.filter((r) => r.partition === p).map((r) => r.value!.toString());
    expect(byPartition(0)).toEqual(['a0', 'a1', 'a2']);
    expect(byPartition(1)).toEqual(['b0', 'b1', 'b2']);
  });

  it('starts at an offset, at latest, or at a timestamp', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    appendValues(cluster, 't', 0, ['a', 'b'], false, 1000);
    appendValues(cluster, 't', 0, ['c', 'd'], false, 5000);
    const consumer = new Consumer(client, fast);
    const values = async (from: Parameters<Consumer['consume']>[0]['from']) =>
      (await collect(consumer.consume({ topic: 't', from, untilEnd: true }))).map((r) => r.value!.toString());
    expect(await values(1)).toEqual(['b', 'c', 'd']);
    expect(await values('latest')).toEqual([]);
    expect(await values({ timestamp: 4000 })).toEqual(['c', 'd']);
    expect(await values({ timestamp: 9000 })).toEqual([]);
    expect(await values('earliest')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('follows a leader change in the middle of consuming', async () => {
    const { cluster, client } = await setup();
    cluster.addTopic('t', [1]);
    appendValues(cluster, 't', 0, ['a']);
    appendValues(cluster, 't', 0, ['b']);
    const consumer = new Consumer(client, { ...fast, maxPartitionFetchBytes: 1 });
    const seen: string[] = [];
    for await (const record of consumer.consume({ topic: 't', untilEnd: true })) {
      seen.push(record.value!.toString());
      if (seen.length === 1) cluster.moveLeader('t', 0, 2);
    }
    expect(seen).toEqual(['a', 'b']);
    expect(cluster.broker(2).requestsOf(Fetch).length).toBeGreaterThan(0);
  });

  it('keeps waiting for new records when not stopping at the end, and stops when the loop breaks', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    const consumer = new Consumer(client, fast);
    setTimeout(() => appendValues(cluster, 't', 0, ['x']), 50);
    let got: ConsumedRecord | undefined;
    for await (const record of consumer.consume({ topic: 't', from: 'latest' })) {
      got = record;
      break;
    }
    expect(got!.value!.toString()).toBe('x');
    // Leaving the loop closed the run: its fetcher sends nothing more (after the Fetch closing its session).
    await new Promise((r) => setTimeout(r, 100));
    const fetches = cluster.broker(1).requestsOf(Fetch).length;
    await new Promise((r) => setTimeout(r, 300));
    expect(cluster.broker(1).requestsOf(Fetch).length).toBe(fetches);
  });

  it('stops with an AbortError when aborted', async () => {
    const { cluster, client } = await setup([1]);
    cluster.addTopic('t', [1]);
    const consumer = new Consumer(client, fast);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(collect(consumer.consume({ topic: 't', signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects unknown topics and partitions and gives up after repeated errors', async () => {
    const { cluster, client } = await setup([1]);
    const consumer = new Consumer(client, { ...fast, retries: 2 });
    await expect(collect(consumer.consume({ topic: 'nope' }))).rejects.toMatchObject({ code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    cluster.addTopic('t', [1]);
    await expect(collect(consumer.consume({ topic: 't', partitions: [3] }))).rejects.toMatchObject({ code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    appendValues(cluster, 't', 0, ['a']);
    cluster.fault = (_n, api) => (api === 'fetch' ? ErrorCode.NOT_LEADER_FOR_PARTITION : undefined);
    await expect(collect(consumer.consume({ topic: 't', from: 0 }))).rejects.toMatchObject({ code: ErrorCode.NOT_LEADER_FOR_PARTITION });
  });
});
