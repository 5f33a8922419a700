import { buildBrokerConfig, KafkaServer } from '@gregor/broker';
import { KafkaClient, Producer } from '@gregor/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../test/support/in-process-cluster.js';
import { buildAdminApp, startAdminServer, type TopicDescription } from './index.js';

// Two real brokers on a real ZooKeeper: broker 1 (the controller) answers the admin requests, and
// broker 2, with topic deletion disabled, leads the partitions whose offsets broker 1 must ask for.
let zk: TestZooKeeper;
let b1: TestBroker;
let b2: TestBroker;
let open: FastifyInstance;
let guarded: FastifyInstance;
let client: KafkaClient;

const TOKEN = 'test-admin-token';
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  zk = await startZooKeeper();
  b1 = await startBroker(zk, 1);
  await waitFor(() => b1.server.metadataCache.controllerId === 1, 15_000, 'broker 1 to become controller');
  b2 = await startBroker(zk, 2, { 'delete.topic.enable': 'false' });
  await waitFor(() => b1.server.metadataCache.aliveBrokers().length === 2 && b2.server.metadataCache.aliveBrokers().length === 2, 15_000, 'both brokers in metadata');
  open = buildAdminApp(b1.server);
  guarded = buildAdminApp(b1.server, { authToken: TOKEN });
  client = new KafkaClient({ brokers: b1.bootstrap });
});

afterAll(async () => {
  await client?.close();
  await open?.close();
  await guarded?.close();
  await b2?.stop();
  await b1?.stop();
  await zk?.stop();
  for (const b of [b1, b2]) if (b) removeDir(b.logDir);
});

async function createTopic(body: Record<string, unknown>) {
  return open.inject({ method: 'POST', url: '/v1/topics', payload: body });
}

describe('health and cluster', () => {
  it('GET /healthz answers ok while the broker runs with a healthy session', async () => {
    const res = await open.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', brokerId: 1, state: 'RunningAsBroker' });
  });

  it('answers 503 for a broker that is not running, on /healthz and on /v1 routes', async () => {
    const idle = new KafkaServer(
      buildBrokerConfig(new Map([['broker.id', '9'], ['listeners', 'PLAINTEXT://127.0.0.1:0'], ['zookeeper.connect', zk.connectString], ['http.port', '-1']])),
    );
    const app = buildAdminApp(idle);
    try {
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ status: 'unavailable', brokerId: 9, state: 'NotRunning', zookeeperSessionHealthy: false, error: { code: 'GREGOR_ERR_BROKER_NOT_READY' } });
      const cluster = await app.inject({ method: 'GET', url: '/v1/cluster' });
      expect(cluster.statusCode).toBe(503);
      expect(cluster.json().error.code).toBe('GREGOR_ERR_BROKER_NOT_READY');
    } finally {
      await app.close();
    }
  });

  it('GET /v1/cluster lists the live brokers and the controller', async () => {
    const res = await open.inject({ method: 'GET', url: '/v1/cluster' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.clusterId).toBe(b1.server.clusterId);
    expect(body.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(body.controllerId).toBe(1);
    expect(body.brokers).toEqual([
      { id: 1, host: '127.0.0.1', port: b1.port, rack: null, endpoints: [{ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: b1.port }] },
      { id: 2, host: '127.0.0.1', port: b2.port, rack: null, endpoints: [{ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: b2.port }] },
    ]);
  });
});

describe('topic lifecycle', () => {
  it('creates, describes with moving offsets, adds partitions and deletes a topic', async () => {
    // Partition 0 on broker 1 (read locally), partition 1 on broker 2 (asked over the Kafka protocol).
    const created = await createTopic({ name: 'orders', assignments: { 0: [1], 1: [2] }, configs: { 'retention.ms': '3600000' } });
    expect(created.statusCode).toBe(201);
    const description = created.json() as TopicDescription;
    expect(description).toMatchObject({ name: 'orders', internal: false, configs: { 'retention.ms': '3600000' } });
    expect(description.partitions.map((p) => [p.partition, p.leader, p.replicas, p.isr])).toEqual([
      [0, 1, [1], [1]],
      [1, 2, [2], [2]],
    ]);
    for (const p of description.partitions) expect([p.logStartOffset, p.highWatermark, p.logEndOffset, p.offlineReplicas]).toEqual([0, 0, 0, []]);

    const producer = new Producer(client, { acks: -1 });
    await producer.send({ topic: 'orders', messages: [0, 1, 2].map((i) => ({ value: `a${i}`, partition: 0 })) });
    await producer.send({ topic: 'orders', messages: [0, 1, 2, 3, 4].map((i) => ({ value: `b${i}`, partition: 1 })) });
    const described = await open.inject({ method: 'GET', url: '/v1/topics/orders' });
    expect(described.statusCode).toBe(200);
    const after = described.json() as TopicDescription;
    expect(after.partitions.map((p) => [p.partition, p.logStartOffset, p.highWatermark, p.logEndOffset, p.offsetsError])).toEqual([
      [0, 0, 3, 3, undefined],
      [1, 0, 5, 5, undefined],
    ]);
    expect(after.partitions.every((p) => p.leaderEpoch >= 0)).toBe(true);

    const listed = await open.inject({ method: 'GET', url: '/v1/topics' });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().topics).toContainEqual({ name: 'orders', partitions: 2, replicationFactor: 1, internal: false });

    const grown = await open.inject({ method: 'POST', url: '/v1/topics/orders/partitions', payload: { count: 4 } });
    expect(grown.statusCode).toBe(200);
    const grownBody = grown.json() as TopicDescription;
    expect(grownBody.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3]);
    expect(grownBody.partitions.every((p) => p.leader >= 1 && p.highWatermark !== null)).toBe(true);
    expect(grownBody.partitions[1]!.highWatermark).toBe(5);

    const shrink = await open.inject({ method: 'POST', url: '/v1/topics/orders/partitions', payload: { count: 3 } });
    expect(shrink.statusCode).toBe(400);
    expect(shrink.json().error).toMatchObject({ code: 'GREGOR_ERR_INVALID_PARTITIONS', kafkaErrorCode: 37 });

    const deleted = await open.inject({ method: 'DELETE', url: '/v1/topics/orders' });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ deleted: 'orders' });
    const gone = await open.inject({ method: 'GET', url: '/v1/topics/orders' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toMatchObject({ code: 'GREGOR_ERR_UNKNOWN_TOPIC', kafkaErrorCode: 3 });
  });

  it('creates with partitions and a replication factor, and validates without creating', async () => {
    const dry = await createTopic({ name: 'dry-run', partitions: 3, replicationFactor: 2, validateOnly: true });
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toEqual({ name: 'dry-run', validateOnly: true });
    expect((await open.inject({ method: 'GET', url: '/v1/topics/dry-run' })).statusCode).toBe(404);

    const res = await createTopic({ name: 'replicated', partitions: 3, replicationFactor: 2 });
    expect(res.statusCode).toBe(201);
    const parts = (res.json() as TopicDescription).partitions;
    expect(parts).toHaveLength(3);
    for (const p of parts) {
      expect([...p.replicas].sort()).toEqual([1, 2]);
      expect(p.replicas).toContain(p.leader);
    }
    const again = await createTopic({ name: 'replicated', partitions: 1 });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: { code: 'GREGOR_ERR_TOPIC_EXISTS', message: "Topic 'replicated' already exists.", kafkaErrorCode: 36 } });
  });
});

describe('errors', () => {
  it.each([
    [{ name: 'bad/name' }, 'GREGOR_ERR_INVALID_TOPIC'],
    [{ name: '..' }, 'GREGOR_ERR_INVALID_TOPIC'],
    [{ name: 'x'.repeat(250) }, 'GREGOR_ERR_INVALID_TOPIC'],
    [{ name: 'zero', partitions: 0 }, 'GREGOR_ERR_INVALID_PARTITIONS'],
    [{ name: 'too-many-replicas', partitions: 1, replicationFactor: 3 }, 'GREGOR_ERR_INVALID_REPLICATION_FACTOR'],
    [{ name: 'no-rf', replicationFactor: -1 }, 'GREGOR_ERR_INVALID_REPLICATION_FACTOR'],
    [{ name: 'bad-config', configs: { 'no.such.config': '1' } }, 'GREGOR_ERR_INVALID_CONFIG'],
    [{ name: 'bad-assignment', assignments: { 0: [1], 2: [2] } }, 'GREGOR_ERR_INVALID_REPLICA_ASSIGNMENT'],
    [{ name: 'unknown-broker', assignments: { 0: [7] } }, 'GREGOR_ERR_INVALID_REPLICA_ASSIGNMENT'],
    [{ name: 'both', partitions: 2, assignments: { 0: [1] } }, 'GREGOR_ERR_INVALID_REQUEST'],
  ])('POST /v1/topics %j answers 400 %s', async (body, code) => {
    const res = await createTopic(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe(code);
    expect(typeof res.json().error.kafkaErrorCode).toBe('number');
  });

  it('answers 400 for illegal names and 404 for unknown topics in paths', async () => {
    for (const name of ['a*b', 'a%2Fb', 'x'.repeat(250)]) {
      const illegal = await open.inject({ method: 'GET', url: `/v1/topics/${name}` });
      expect([name, illegal.statusCode, illegal.json().error.code]).toEqual([name, 400, 'GREGOR_ERR_INVALID_TOPIC']);
    }
    const longest = await open.inject({ method: 'GET', url: `/v1/topics/${'y'.repeat(249)}` });
    expect([longest.statusCode, longest.json().error.code]).toEqual([404, 'GREGOR_ERR_UNKNOWN_TOPIC']);
    for (const [method, url, payload] of [
      ['GET', '/v1/topics/missing', undefined],
      ['DELETE', '/v1/topics/missing', undefined],
      ['POST', '/v1/topics/missing/partitions', { count: 2 }],
    ] as const) {
      const res = await open.inject({ method, url, ...(payload ? { payload } : {}) });
      expect([method, url, res.statusCode, res.json().error.code]).toEqual([method, url, 404, 'GREGOR_ERR_UNKNOWN_TOPIC']);
    }
  });

  it('refuses deletion where it is disabled', async () => {
    expect((await createTopic({ name: 'kept', partitions: 1 })).statusCode).toBe(201);
    await waitFor(() => b2.server.metadataCache.contains('kept'), 10_000, 'broker 2 to learn about the topic');
    const onB2 = buildAdminApp(b2.server);
    try {
      const res = await onB2.inject({ method: 'DELETE', url: '/v1/topics/kept' });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'GREGOR_ERR_TOPIC_DELETION_DISABLED', kafkaErrorCode: 73 });
    } finally {
      await onB2.close();
    }
  });

  it('rejects bodies that do not match the schema, without coercing them', async () => {
    for (const body of [{ name: 'x', partitions: '3' }, { name: 'x', extra: true }, { partitions: 1 }, { name: 'x', assignments: { a: [1] } }, { name: 'x', configs: { k: 1 } }, ['x']]) {
      const res = await open.inject({ method: 'POST', url: '/v1/topics', payload: body as object });
      expect([JSON.stringify(body), res.statusCode, res.json().error.code]).toEqual([JSON.stringify(body), 400, 'GREGOR_ERR_VALIDATION']);
    }
    const query = await open.inject({ method: 'GET', url: '/v1/topics?verbose=true' });
    expect([query.statusCode, query.json().error.code]).toEqual([400, 'GREGOR_ERR_VALIDATION']);
    const noCount = await open.inject({ method: 'POST', url: '/v1/topics/replicated/partitions', payload: {} });
    expect([noCount.statusCode, noCount.json().error.code]).toEqual([400, 'GREGOR_ERR_VALIDATION']);
    const badJson = await open.inject({ method: 'POST', url: '/v1/topics', headers: { 'content-type': 'application/json' }, payload: '{"name": ' });
    expect([badJson.statusCode, badJson.json().error.code]).toEqual([400, 'GREGOR_ERR_BAD_REQUEST']);
    const text = await open.inject({ method: 'POST', url: '/v1/topics', headers: { 'content-type': 'text/plain' }, payload: 'name=x' });
    expect([text.statusCode, text.json().error.code]).toEqual([415, 'GREGOR_ERR_UNSUPPORTED_MEDIA_TYPE']);
    const route = await open.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(route.statusCode).toBe(404);
    expect(route.json()).toEqual({ error: { code: 'GREGOR_ERR_NOT_FOUND', message: 'No route for GET /v1/nothing-here' } });
  });

  it('limits the body size', async () => {
    const small = buildAdminApp(b1.server, { bodyLimitBytes: 64 });
    try {
      const res = await small.inject({ method: 'POST', url: '/v1/topics', payload: { name: 'big', configs: { 'retention.ms': '1'.repeat(100) } } });
      expect(res.statusCode).toBe(413);
      expect(res.json().error.code).toBe('GREGOR_ERR_BODY_TOO_LARGE');
    } finally {
      await small.close();
    }
  });
});

describe('authentication', () => {
  it('lets reads through and needs the bearer token for writes', async () => {
    expect((await guarded.inject({ method: 'GET', url: '/v1/topics' })).statusCode).toBe(200);

    const missing = await guarded.inject({ method: 'POST', url: '/v1/topics', payload: { name: 'guarded' } });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(missing.json().error.code).toBe('GREGOR_ERR_UNAUTHORIZED');

    const basic = await guarded.inject({ method: 'DELETE', url: '/v1/topics/replicated', headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    expect([basic.statusCode, basic.json().error.code]).toEqual([401, 'GREGOR_ERR_UNAUTHORIZED']);

    const wrong = await guarded.inject({ method: 'DELETE', url: '/v1/topics/replicated', headers: { authorization: 'Bearer not-the-token' } });
    expect([wrong.statusCode, wrong.json().error.code]).toEqual([403, 'GREGOR_ERR_FORBIDDEN']);
    expect((await open.inject({ method: 'GET', url: '/v1/topics/replicated' })).statusCode).toBe(200);

    const right = await guarded.inject({ method: 'POST', url: '/v1/topics', headers: auth, payload: { name: 'guarded', validateOnly: true } });
    expect(right.statusCode).toBe(200);
    // Authentication comes before validation: an anonymous bad body is still a 401.
    const anonymousJunk = await guarded.inject({ method: 'POST', url: '/v1/topics', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(anonymousJunk.statusCode).toBe(401);
  });
});

describe('hardening', () => {
  it('answers only Host names on the allowlist (DNS rebinding): loopback, the machine, advertised hosts', async () => {
    for (const host of ['localhost:8780', '127.0.0.1', '[::1]:8780', 'LOCALHOST']) {
      expect((await open.inject({ method: 'GET', url: '/v1/topics', headers: { host } })).statusCode, host).toBe(200);
    }
    const rebound = await open.inject({ method: 'GET', url: '/v1/topics', headers: { host: 'attacker.example:8780' } });
    expect([rebound.statusCode, rebound.json().error.code]).toEqual([403, 'GREGOR_ERR_HOST_NOT_ALLOWED']);
    const anyHost = buildAdminApp(b1.server, { allowedHosts: ['*'] });
    try {
      expect((await anyHost.inject({ method: 'GET', url: '/v1/topics', headers: { host: 'attacker.example' } })).statusCode).toBe(200);
    } finally {
      await anyHost.close();
    }
  });

  it('a 500 says nothing about the failure but a request id', async () => {
    const app = buildAdminApp(b1.server);
    app.get('/v1/boom', async () => {
      throw new TypeError('cannot read /var/lib/secret/path of undefined');
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/boom' });
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe('GREGOR_ERR_INTERNAL');
      expect(res.body).not.toContain('secret');
      expect(res.json().error.message).toMatch(/^Internal error \(request req-[\w-]+\); the broker log has the details\.$/);
    } finally {
      await app.close();
    }
  });

  it('manages SCRAM users in /config/users (token required, no credential ever shown)', async () => {
    expect((await guarded.inject({ method: 'GET', url: '/v1/users' })).statusCode).toBe(401);
    const created = await guarded.inject({ method: 'POST', url: '/v1/users', headers: auth, payload: { name: 'alice', password: 'alice-pw', mechanisms: ['SCRAM-SHA-512'], iterations: 8192 } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({ user: 'alice', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }] });
    expect(created.body).not.toContain('alice-pw');
    const stored = JSON.parse((await b1.server.zk.zk.getData('/config/users/alice')).data.toString());
    expect(stored.config['SCRAM-SHA-512']).toMatch(/^salt=[A-Za-z0-9+/=]+,stored_key=[A-Za-z0-9+/=]{88},server_key=[A-Za-z0-9+/=]{88},iterations=8192$/);
    await waitFor(() => b2.server.scramCredentials.get('SCRAM-SHA-512', 'alice') !== null, 10_000, 'broker 2 to learn the credential');
    const listed = await guarded.inject({ method: 'GET', url: '/v1/users', headers: auth });
    expect(listed.json().users).toContainEqual({ user: 'alice', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }] });
    const weak = await guarded.inject({ method: 'POST', url: '/v1/users', headers: auth, payload: { name: 'bob', password: 'x', iterations: 100 } });
    expect([weak.statusCode, weak.json().error.code]).toEqual([400, 'GREGOR_ERR_VALIDATION']);
    expect((await guarded.inject({ method: 'DELETE', url: '/v1/users/alice', headers: auth })).json()).toEqual({ deleted: 'alice', mechanisms: ['SCRAM-SHA-256', 'SCRAM-SHA-512'] });
    const again = await guarded.inject({ method: 'DELETE', url: '/v1/users/alice', headers: auth });
    expect([again.statusCode, again.json().error.code]).toEqual([404, 'GREGOR_ERR_UNKNOWN_USER']);
    await waitFor(() => b2.server.scramCredentials.get('SCRAM-SHA-512', 'alice') === null, 10_000, 'broker 2 to forget the credential');
  });
});

describe('startAdminServer', () => {
  it('listens on a real port and stops on close()', async () => {
    const admin = await startAdminServer(b1.server, { host: '127.0.0.1', port: 0, logger: b1.server.log });
    expect(admin.port).toBeGreaterThan(0);
    try {
      const res = await fetch(`http://127.0.0.1:${admin.port}/v1/topics/replicated`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as TopicDescription;
      expect(body.partitions).toHaveLength(3);
    } finally {
      await admin.close();
    }
    await expect(fetch(`http://127.0.0.1:${admin.port}/healthz`)).rejects.toThrow();
  });
});

describe('a partition without a leader', () => {
  it('is described with null offsets and the reason, and healthz on its broker turns 503', async () => {
    expect((await createTopic({ name: 'on-broker-2', assignments: { 0: [2] } })).statusCode).toBe(201);
    const onB2 = buildAdminApp(b2.server);
    try {
      await b2.stop();
      const health = await onB2.inject({ method: 'GET', url: '/healthz' });
      expect([health.statusCode, health.json().state]).toEqual([503, 'NotRunning']);
    } finally {
      await onB2.close();
    }
    await waitFor(() => b1.server.metadataCache.partition('on-broker-2', 0)?.leader === -1, 15_000, 'the partition to go offline');
    const res = await open.inject({ method: 'GET', url: '/v1/topics/on-broker-2' });
    expect(res.statusCode).toBe(200);
    const [p] = (res.json() as TopicDescription).partitions;
    expect(p).toMatchObject({ partition: 0, leader: -1, replicas: [2], logStartOffset: null, highWatermark: null, logEndOffset: null, offsetsError: 'the partition has no leader' });
  });
});
