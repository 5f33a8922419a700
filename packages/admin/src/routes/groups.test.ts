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
    expect(res.json()).toEqual({ groups: ['billing'] });
  });

  it('GET /v1/groups/:id shows members, owners, committed and log end offsets, lag', async () => {
    const body = await waitFor(async () => {
      const b = (await app.inject({ method: 'GET', url: '/v1/groups/billing' })).json() as { partitions: { logEndOffset: number | null }[] };
      return b.partitions.every((p) => p.logEndOffset === 5) ? b : null;
    }, 10_000, 'log end offsets');
    expect(body).toMatchObject({ group: 'billing', members: [{ consumerId: 'billing_c1', pattern: 'static', subscription: { orders: 1 } }] });
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
});
