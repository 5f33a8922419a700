import { KafkaClient, Producer } from '@gregor/client';
import { ErrorCode } from '@gregor/common';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../../test/support/in-process-cluster.js';
import { ADMIN_ERRORS, adminCodeForKafka } from '../errors.js';
import { buildAdminApp } from '../index.js';

// Broker 1 leads partition 0 and broker 2 partition 1 (RF 1); broker 1's admin app reads and writes both.
let zk: TestZooKeeper;
let b1: TestBroker;
let b2: TestBroker;
let app: FastifyInstance;
let client: KafkaClient;
const TOPIC = 'local-reads';
const url = (partition: number, query = '') => `/v1/topics/${TOPIC}/partitions/${partition}/records${query}`;

/** What a broker's socket server saw: open connections and the data-path requests it answered. */
function traffic(b: TestBroker) {
  const count = (api: string) => b.server.apis.requestCounts.get(api) ?? 0;
  return { connections: b.server.socketServer.connectionCount, fetch: count('Fetch'), listOffsets: count('ListOffsets'), produce: count('Produce'), metadata: count('Metadata') };
}

beforeAll(async () => {
  zk = await startZooKeeper();
  b1 = await startBroker(zk, 1, { 'auto.leader.rebalance.enable': 'false' });
  await waitFor(() => b1.server.metadataCache.controllerId === 1, 15_000, 'broker 1 to become controller');
  b2 = await startBroker(zk, 2, { 'auto.leader.rebalance.enable': 'false' });
  await waitFor(() => b1.server.metadataCache.aliveBrokers().length === 2 && b2.server.metadataCache.aliveBrokers().length === 2, 15_000, 'both brokers');
  app = buildAdminApp(b1.server);
  const res = await app.inject({ method: 'POST', url: '/v1/topics', payload: { name: TOPIC, assignments: { '0': [1], '1': [2] } } });
  expect(res.statusCode, res.body).toBe(201);
  await waitFor(() => b1.server.replicaManager.getPartition(TOPIC, 0)?.isLeader === true && b2.server.replicaManager.getPartition(TOPIC, 1)?.isLeader === true, 15_000, 'leaders');
  await waitFor(() => b1.server.metadataCache.partitions(TOPIC).every((p) => p.leader >= 0), 15_000, 'leaders in broker 1 metadata');
  client = new KafkaClient({ brokers: b1.bootstrap });
  const producer = new Producer(client, { acks: -1 });
  for (const partition of [0, 1]) {
    // Offsets 0-4 in one gzip batch, 5-7 in one zstd batch, 8 uncompressed.
    await producer.send({ topic: TOPIC, compression: 'gzip', messages: Array.from({ length: 5 }, (_, i) => ({ partition, key: `g${i}`, value: `gzip-${i}`, headers: { n: String(i), bin: Buffer.from([0, 255, i]) } })) });
    await producer.send({ topic: TOPIC, compression: 'zstd', messages: Array.from({ length: 3 }, (_, i) => ({ partition, key: `z${i}`, value: `zstd-${i}` })) });
    await producer.send({ topic: TOPIC, messages: [{ partition, key: null, value: null }] });
  }
}, 60_000);

afterAll(async () => {
  await client?.close();
  await app?.close();
  await b2?.stop();
  await b1?.stop();
  await zk?.stop();
  for (const b of [b1, b2]) if (b) removeDir(b.logDir);
});

describe('record routes on the partition leader itself', () => {
  it('read a local partition through the ReplicaManager: no connection and no Kafka request to this broker', async () => {
    const before = traffic(b1);
    const all = await app.inject({ method: 'GET', url: url(0, '?limit=100') });
    expect(all.statusCode, all.body).toBe(200);
    const body = all.json();
    expect(body).toMatchObject({ partition: 0, highWatermark: 9, logStartOffset: 0, startOffset: 0, nextOffset: 9, scanned: 9 });
    expect(body.records.map((r: { offset: number }) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(body.records[3]).toMatchObject({ key: 'g3', value: 'gzip-3', headers: { n: '3' } });
    expect(body.records[6]).toMatchObject({ offset: 6, key: 'z1', value: 'zstd-1', headers: {} });
    expect(body.records[8]).toMatchObject({ offset: 8, key: null, value: null });
    // From inside the gzip batch, by time, by key, and the header bytes as base64.
    expect((await app.inject({ method: 'GET', url: url(0, '?offset=2&limit=2') })).json().records.map((r: { value: string }) => r.value)).toEqual(['gzip-2', 'gzip-3']);
    const fromTime = (await app.inject({ method: 'GET', url: url(0, `?timestamp=${body.records[5].timestamp}&limit=1`) })).json();
    expect(fromTime.startOffset).toBeLessThanOrEqual(5);
    expect((await app.inject({ method: 'GET', url: url(0, '?key=z2') })).json().records).toMatchObject([{ offset: 7, value: 'zstd-2' }]);
    const raw = (await app.inject({ method: 'GET', url: url(0, '?offset=4&limit=1&encoding=base64') })).json().records[0];
    expect(raw.headers.bin).toBe(Buffer.from([0, 255, 4]).toString('base64'));
    expect(traffic(b1)).toEqual(before);
  });

  it('produce to a local partition through the ReplicaManager (acks all, 1 and 0), then read it back', async () => {
    const before = traffic(b1);
    const big = 'x'.repeat(20_000); // past one producer batch: the records go in several batches of one request
    const sent = await app.inject({ method: 'POST', url: url(0), payload: { records: [{ key: 'a', value: 'one', headers: { h: 'x' } }, { value: big }, { value: big }, { key: 'd', value: null }] } });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toEqual({ topic: TOPIC, partition: 0, baseOffset: 9, count: 4 });
    expect((await app.inject({ method: 'POST', url: url(0), payload: { acks: 1, records: [{ value: 'acks1' }] } })).json()).toMatchObject({ baseOffset: 13, count: 1 });
    expect((await app.inject({ method: 'POST', url: url(0), payload: { acks: 0, records: [{ value: 'acks0' }] } })).json()).toMatchObject({ baseOffset: -1, count: 1 });
    const got = (await app.inject({ method: 'GET', url: url(0, '?offset=9') })).json();
    expect(got).toMatchObject({ highWatermark: 15, nextOffset: 15 });
    expect(got.records.map((r: { value: string | null }) => r.value)).toEqual(['one', big, big, null, 'acks1', 'acks0']);
    expect(got.records[0]).toMatchObject({ key: 'a', headers: { h: 'x' } });
    expect(traffic(b1)).toEqual(before);
  });

  it('a partition led by another broker is asked of that leader, never through this broker', async () => {
    const before = [traffic(b1), traffic(b2)] as const;
    const read = (await app.inject({ method: 'GET', url: url(1, '?limit=100') })).json();
    expect(read.records.map((r: { value: string | null }) => r.value)).toEqual(['gzip-0', 'gzip-1', 'gzip-2', 'gzip-3', 'gzip-4', 'zstd-0', 'zstd-1', 'zstd-2', null]);
    expect(read.records[2].headers).toEqual({ n: '2', bin: Buffer.from([0, 255, 2]).toString('utf8') });
    expect((await app.inject({ method: 'POST', url: url(1), payload: { records: [{ key: 'r', value: 'remote' }] } })).json()).toMatchObject({ baseOffset: 9, count: 1 });
    expect((await app.inject({ method: 'GET', url: url(1, '?offset=9') })).json().records).toMatchObject([{ offset: 9, key: 'r', value: 'remote' }]);
    const after = [traffic(b1), traffic(b2)] as const;
    expect(after[0]).toEqual(before[0]);
    expect(after[1].fetch).toBeGreaterThan(before[1].fetch);
    expect(after[1].produce).toBe(before[1].produce + 1);
    expect(after[1].listOffsets).toBeGreaterThan(before[1].listOffsets);
  });

  it('errors map to the same HTTP statuses on both paths', async () => {
    const status = (code: number) => ADMIN_ERRORS[adminCodeForKafka(code)].status;
    for (const partition of [0, 1]) {
      const out = await app.inject({ method: 'GET', url: url(partition, '?offset=999') });
      expect([out.statusCode, out.json().error.kafkaErrorCode]).toEqual([status(ErrorCode.OFFSET_OUT_OF_RANGE), ErrorCode.OFFSET_OUT_OF_RANGE]);
    }
    const unknown = await app.inject({ method: 'GET', url: url(7) });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'GREGOR_ERR_UNKNOWN_PARTITION']);
  });
});
