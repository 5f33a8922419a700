import { Admin, KafkaClient, Producer } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { ZookeeperConsumerConnector } from '@gregor/consumer';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../../test/support/in-process-cluster.js';
import { buildAdminApp } from '../index.js';

// A real ZooKeeper and broker; a ZooKeeper consumer connector reads half of what was produced.
let zk: TestZooKeeper;
let broker: TestBroker;
let app: FastifyInstance;
let client: KafkaClient;
let connector: ZookeeperConsumerConnector;

beforeAll(async () => {
  zk = await startZooKeeper();
  broker = await startBroker(zk, 1);
  app = buildAdminApp(broker.server);
  client = new KafkaClient({ brokers: broker.bootstrap });
  await new Admin(client).createTopics([{ name: 'orders', numPartitions: 2, replicationFactor: 1 }]);
  await new Producer(client, { acks: 1 }).send({ topic: 'orders', messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, partition: i % 2 })) });
  connector = await ZookeeperConsumerConnector.create(
    { 'group.id': 'billing', 'consumer.id': 'c1', 'zookeeper.connect': zk.connectString, 'auto.offset.reset': 'smallest', 'auto.commit.enable': 'false' },
    { logger: silentLogger() },
  );
  const [stream] = (await connector.createMessageStreams({ orders: 1 })).orders!;
  const it = stream![Symbol.asyncIterator]();
  for (let i = 0; i < 4; i++) await it.next();
  await connector.commitOffsets();
}, 60_000);

afterAll(async () => {
  await connector?.shutdown();
  await client?.close();
  await app?.close();
  await broker?.stop();
  await zk?.stop();
  if (broker) removeDir(broker.logDir);
});

describe('consumer group routes', () => {
  it('GET /v1/groups lists the groups under /consumers', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/groups' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ groups: ['billing'], entries: [{ group: 'billing', kind: 'zookeeper' }] });
  });

  it('GET /v1/groups/:id shows members, owners, committed and log end offsets, lag', async () => {
    const body = await waitFor(async () => {
      const b = (await app.inject({ method: 'GET', url: '/v1/groups/billing' })).json() as { partitions: { logEndOffset: number | null }[] };
      return b.partitions.every((p) => p.logEndOffset === 5) ? b : null;
    }, 10_000, 'log end offsets');
    expect(body).toMatchObject({ group: 'billing', kind: 'zookeeper', members: [{ consumerId: 'billing_c1', pattern: 'static', subscription: { orders: 1 } }] });
    const parts = (body as unknown as { partitions: { committedOffset: number; lag: number; owner: string }[] }).partitions;
    expect(parts.map((p) => p.owner)).toEqual(['billing_c1-0', 'billing_c1-0']);
    expect(parts.reduce((s, p) => s + p.committedOffset, 0)).toBe(4);
    expect(parts.reduce((s, p) => s + p.lag, 0)).toBe(6);
  });

  it('answers 404 GREGOR_ERR_UNKNOWN_GROUP for an unknown group and 400 for an invalid id', async () => {
    const unknown = await app.inject({ method: 'GET', url: '/v1/groups/nobody' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'GREGOR_ERR_UNKNOWN_GROUP', message: "Consumer group 'nobody' does not exist.", kafkaErrorCode: 69 } });
    const bad = await app.inject({ method: 'GET', url: '/v1/groups/a%2Fb' }); // "a/b" cannot be a znode name
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'GREGOR_ERR_VALIDATION' } });
  });

  it('POST /v1/groups/:id/offsets/reset answers 409 while a consumer is registered, then resets to latest once it left', async () => {
    const busy = await app.inject({ method: 'POST', url: '/v1/groups/billing/offsets/reset', payload: { to: 'latest' } });
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ error: { code: 'GREGOR_ERR_GROUP_NOT_EMPTY', kafkaErrorCode: 68 } });
    await connector.shutdown();
    const before = await Promise.all([0, 1].map((p) => broker.server.zk.getConsumerOffset('billing', 'orders', p)));
    const res = await app.inject({ method: 'POST', url: '/v1/groups/billing/offsets/reset', payload: { to: 'latest', topics: ['orders'] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      group: 'billing',
      kind: 'zookeeper',
      dryRun: false,
      offsets: [0, 1].map((partition) => ({ topic: 'orders', partition, previousOffset: Number(before[partition]), offset: 5 })),
    });
    expect(await Promise.all([0, 1].map((p) => broker.server.zk.getConsumerOffset('billing', 'orders', p)))).toEqual([5n, 5n]);
    const described = (await app.inject({ method: 'GET', url: '/v1/groups/billing' })).json() as { partitions: { lag: number }[] };
    expect(described.partitions.map((p) => p.lag)).toEqual([0, 0]);
    const unknownTopic = await app.inject({ method: 'POST', url: '/v1/groups/billing/offsets/reset', payload: { to: 'earliest', topics: ['nope'] } });
    expect(unknownTopic.json()).toMatchObject({ error: { code: 'GREGOR_ERR_UNKNOWN_TOPIC' } });
    const unknownGroup = await app.inject({ method: 'POST', url: '/v1/groups/nobody/offsets/reset', payload: { to: 'earliest' } });
    expect(unknownGroup.statusCode).toBe(404);
    const bad = await app.inject({ method: 'POST', url: '/v1/groups/billing/offsets/reset', payload: { to: 'middle' } });
    expect(bad.json()).toMatchObject({ error: { code: 'GREGOR_ERR_VALIDATION' } });
  });

  it('a dry run plans without writing; offset and shiftBy are clamped into [log start, high watermark]', async () => {
    const zkOffsets = () => Promise.all([0, 1].map((p) => broker.server.zk.getConsumerOffset('billing', 'orders', p)));
    const reset = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/v1/groups/billing/offsets/reset', payload });
    expect(await zkOffsets()).toEqual([5n, 5n]);
    const plan = await reset({ to: { shiftBy: -2 }, dryRun: true });
    expect(plan.json()).toEqual({
      group: 'billing',
      kind: 'zookeeper',
      dryRun: true,
      offsets: [0, 1].map((partition) => ({ topic: 'orders', partition, previousOffset: 5, offset: 3 })),
    });
    expect(await zkOffsets()).toEqual([5n, 5n]);
    expect((await reset({ to: { shiftBy: -2 } })).json()).toMatchObject({ dryRun: false, offsets: [{ offset: 3 }, { offset: 3 }] });
    expect(await zkOffsets()).toEqual([3n, 3n]);
    expect((await reset({ to: { shiftBy: -100 } })).json()).toMatchObject({ offsets: [{ previousOffset: 3, offset: 0 }, { previousOffset: 3, offset: 0 }] });
    expect((await reset({ to: { offset: 4 } })).json()).toMatchObject({ offsets: [{ offset: 4 }, { offset: 4 }] });
    expect((await reset({ to: { offset: 999 } })).json()).toMatchObject({ offsets: [{ previousOffset: 4, offset: 5 }, { previousOffset: 4, offset: 5 }] });
    expect(await zkOffsets()).toEqual([5n, 5n]);
    const both = await reset({ to: { offset: 1, shiftBy: 1 } });
    expect(both.json()).toMatchObject({ error: { code: 'GREGOR_ERR_VALIDATION' } });
  });
});
