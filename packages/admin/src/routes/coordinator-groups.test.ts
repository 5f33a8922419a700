import type { FastifyInstance } from 'fastify';
import { Kafka, logLevel, type Admin, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../../test/support/in-process-cluster.js';
import { buildAdminApp } from '../index.js';

// A real ZooKeeper and two brokers; a kafkajs consumer group (broker-side coordinator) reads the first half of
// a topic. The admin API asked is the one of the broker that does NOT coordinate the group, so that
// ListGroups, DescribeGroups, OffsetFetch/Commit and ListOffsets go over the wire to the other broker.
const TOKEN = 'group-admin-token';
const auth = { authorization: `Bearer ${TOKEN}` };

let zk: TestZooKeeper;
let brokers: TestBroker[] = [];
let apps: FastifyInstance[] = [];
let app: FastifyInstance;
let coordinatorId = -1;
let kafka: Kafka;
let admin: Admin;
let consumer: Consumer | null = null;
let secondHalfFrom = 0;

interface Described {
  kind: string;
  state: string;
  protocolType: string;
  protocol: string;
  members: { memberId: string; clientId: string; clientHost: string; assignment: { topic: string; partitions: number[] }[] | null }[];
  partitions: { topic: string; partition: number; owner: string | null; committedOffset: number | null; logEndOffset: number | null; lag: number | null }[];
}

async function produce(from: number, n: number): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'events', acks: -1, messages: Array.from({ length: n }, (_, i) => ({ partition: i % 2, value: `v${from + i}` })) });
  await producer.disconnect();
}

async function describeGroup(): Promise<Described> {
  const res = await app.inject({ method: 'GET', url: '/v1/groups/g-kjs' });
  expect(res.statusCode).toBe(200);
  return res.json() as Described;
}

function reset(payload: unknown, headers: Record<string, string> = auth) {
  return app.inject({ method: 'POST', url: '/v1/groups/g-kjs/offsets/reset', headers, payload: payload as Record<string, unknown> });
}

async function committed(): Promise<number[]> {
  const [topic] = await admin.fetchOffsets({ groupId: 'g-kjs', topics: ['events'] });
  return topic!.partitions.sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
}

beforeAll(async () => {
  zk = await startZooKeeper();
  const props = { 'offsets.topic.num.partitions': '2', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '0' };
  brokers = [await startBroker(zk, 1, props), await startBroker(zk, 2, props)];
  apps = brokers.map((b) => buildAdminApp(b.server, { authToken: TOKEN }));
  app = apps[0]!;
  kafka = new Kafka({ clientId: 'kjs-admin-test', brokers: brokers.map((b) => b.bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
  await produce(0, 10);
}, 60_000);

afterAll(async () => {
  await consumer?.disconnect();
  await admin?.disconnect();
  for (const a of apps) await a.close();
  for (const b of brokers) await b.stop();
  await zk?.stop();
  for (const b of brokers) removeDir(b.logDir);
});

describe('coordinator consumer groups', () => {
  it('shows an active kafkajs member with its assignment and refuses to reset its offsets (409)', async () => {
    const seen = new Set<string>();
    consumer = kafka.consumer({ groupId: 'g-kjs', sessionTimeout: 6000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'events', fromBeginning: true });
    await consumer.run({ autoCommitThreshold: 1, eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
    const body = await waitFor(async () => {
      const d = await describeGroup();
      return seen.size === 10 && d.state === 'Stable' && d.partitions.every((p) => p.committedOffset === 5) ? d : null;
    }, 20_000, 'the group read and committed the first 10 records');
    expect(body).toMatchObject({ kind: 'coordinator', protocolType: 'consumer', protocol: 'RoundRobinAssigner' });
    coordinatorId = (body as unknown as { coordinator: number }).coordinator;
    app = apps[coordinatorId === 1 ? 1 : 0]!;
    expect((await describeGroup()).members).toHaveLength(1); // the same view from the other broker
    expect(body.members).toHaveLength(1);
    const [m] = body.members;
    expect(m).toMatchObject({ clientId: 'kjs-admin-test', assignment: [{ topic: 'events', partitions: [0, 1] }] });
    expect(body.partitions.map((p) => [p.partition, p.owner, p.lag])).toEqual([
      [0, m!.memberId, 0],
      [1, m!.memberId, 0],
    ]);

    const busy = await reset({ to: 'earliest' });
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ error: { code: 'GREGOR_ERR_GROUP_NOT_EMPTY', kafkaErrorCode: 68 } });
    expect(await committed()).toEqual([5, 5]);

    await consumer.disconnect();
    consumer = null;
    await new Promise((r) => setTimeout(r, 20)); // the second half gets later timestamps than the first
    secondHalfFrom = Date.now();
    await produce(10, 10);
  }, 30_000);

  it('lists the disconnected group as an Empty coordinator group and describes its lag', async () => {
    const list = await app.inject({ method: 'GET', url: '/v1/groups' });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ groups: ['g-kjs'], entries: [{ group: 'g-kjs', kind: 'coordinator', state: 'Empty', protocolType: 'consumer', coordinator: coordinatorId }] });
    const body = await describeGroup();
    expect(body).toMatchObject({ kind: 'coordinator', state: 'Empty', members: [] });
    expect(body.partitions).toEqual([0, 1].map((partition) => ({ topic: 'events', partition, owner: null, committedOffset: 5, logEndOffset: 10, lag: 5 })));
    const zkKind = await app.inject({ method: 'GET', url: '/v1/groups/g-kjs?kind=zookeeper' });
    expect(zkKind.json()).toMatchObject({ error: { code: 'GREGOR_ERR_UNKNOWN_GROUP' } });
  });

  it('resets an inactive group to earliest, a timestamp and latest; kafkajs fetchOffsets sees each', async () => {
    expect((await reset({ to: 'earliest' }, {})).statusCode).toBe(401);

    const earliest = await reset({ to: 'earliest' });
    expect(earliest.statusCode).toBe(200);
    expect(earliest.json()).toEqual({
      group: 'g-kjs',
      kind: 'coordinator',
      dryRun: false,
      offsets: [0, 1].map((partition) => ({ topic: 'events', partition, previousOffset: 5, offset: 0 })),
    });
    expect(await committed()).toEqual([0, 0]);
    expect((await describeGroup()).partitions.map((p) => p.lag)).toEqual([10, 10]);

    const byTime = await reset({ to: { timestamp: secondHalfFrom }, topics: ['events'] });
    expect(byTime.json()).toMatchObject({ offsets: [{ partition: 0, previousOffset: 0, offset: 5 }, { partition: 1, previousOffset: 0, offset: 5 }] });
    expect(await committed()).toEqual([5, 5]);

    const future = await reset({ to: { timestamp: Date.now() + 3_600_000 } }); // no record that new: the log end
    expect(future.json()).toMatchObject({ offsets: [{ offset: 10 }, { offset: 10 }] });

    await reset({ to: 'earliest' });
    const latest = await reset({ to: 'latest' });
    expect(latest.json()).toMatchObject({ offsets: [{ previousOffset: 0, offset: 10 }, { previousOffset: 0, offset: 10 }] });
    expect(await committed()).toEqual([10, 10]);
  });

  it('dry runs commit nothing; shiftBy and offset are clamped; shifting without a committed offset is refused', async () => {
    expect(await committed()).toEqual([10, 10]);
    const plan = await reset({ to: { shiftBy: -3 }, dryRun: true });
    expect(plan.json()).toEqual({ group: 'g-kjs', kind: 'coordinator', dryRun: true, offsets: [0, 1].map((partition) => ({ topic: 'events', partition, previousOffset: 10, offset: 7 })) });
    expect(await committed()).toEqual([10, 10]);
    expect((await reset({ to: { shiftBy: -3 } })).json()).toMatchObject({ dryRun: false, offsets: [{ offset: 7 }, { offset: 7 }] });
    expect(await committed()).toEqual([7, 7]);
    expect((await reset({ to: { offset: 2 }, dryRun: true })).json()).toMatchObject({ offsets: [{ previousOffset: 7, offset: 2 }, { previousOffset: 7, offset: 2 }] });
    expect((await reset({ to: { shiftBy: 50 } })).json()).toMatchObject({ offsets: [{ offset: 10 }, { offset: 10 }] });
    expect(await committed()).toEqual([10, 10]);
    // A topic the group never committed: nothing to shift from.
    await admin.createTopics({ topics: [{ topic: 'fresh', numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
    await waitFor(() => brokers[0]!.server.metadataCache.contains('fresh'), 15_000, 'fresh in the metadata');
    const noBase = await reset({ to: { shiftBy: 1 }, topics: ['fresh'] });
    expect([noBase.statusCode, noBase.json().error.code]).toEqual([400, 'GREGOR_ERR_INVALID_REQUEST']);
  });

  it('answers 404 GREGOR_ERR_UNKNOWN_GROUP for a group of neither kind', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/groups/nobody' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'GREGOR_ERR_UNKNOWN_GROUP', kafkaErrorCode: 69 } });
    const resetUnknown = await app.inject({ method: 'POST', url: '/v1/groups/nobody/offsets/reset', headers: auth, payload: { to: 'latest' } });
    expect(resetUnknown.statusCode).toBe(404);
  });

  it('the OpenAPI document at /docs/json has the group routes with their schemas', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { requestBody?: unknown; responses?: Record<string, unknown> }>> };
    expect(doc.paths['/v1/groups/{id}/offsets/reset']?.post?.requestBody).toBeDefined();
    expect(doc.paths['/v1/groups/{id}/offsets/reset']?.post?.responses?.['200']).toBeDefined();
    expect(doc.paths['/v1/groups/{id}']?.get?.responses?.['200']).toBeDefined();
  });
});
