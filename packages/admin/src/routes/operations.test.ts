import { KafkaClient, Producer } from '@gregor/client';
import { configChangesPath, preferredReplicaElectionPath, reassignPartitionsPath } from '@gregor/zookeeper';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../../test/support/in-process-cluster.js';
import { buildAdminApp, type TopicDescription } from '../index.js';
import { countRecords } from '../metrics.js';

// Two real brokers on a real ZooKeeper; the admin app of broker 1 (the controller) answers, with a token for writes.
let zk: TestZooKeeper;
let b1: TestBroker;
let b2: TestBroker;
let app: FastifyInstance;
let app2: FastifyInstance;
let client: KafkaClient;
const TOKEN = 'ops-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const TOPIC = 'ops';

beforeAll(async () => {
  zk = await startZooKeeper();
  b1 = await startBroker(zk, 1, { 'auto.leader.rebalance.enable': 'false' });
  await waitFor(() => b1.server.metadataCache.controllerId === 1, 15_000, 'broker 1 to become controller');
  b2 = await startBroker(zk, 2, { 'auto.leader.rebalance.enable': 'false' });
  await waitFor(() => b1.server.metadataCache.aliveBrokers().length === 2 && b2.server.metadataCache.aliveBrokers().length === 2, 15_000, 'both brokers');
  app = buildAdminApp(b1.server, { authToken: TOKEN });
  app2 = buildAdminApp(b2.server);
  client = new KafkaClient({ brokers: b1.bootstrap });
  const res = await app.inject({ method: 'POST', url: '/v1/topics', headers: auth, payload: { name: TOPIC, partitions: 2, replicationFactor: 2 } });
  expect(res.statusCode, res.body).toBe(201);
  await waitFor(() => b2.server.metadataCache.partitions(TOPIC).length === 2, 15_000, 'topic on broker 2');
}, 60_000);

afterAll(async () => {
  await client?.close();
  await app?.close();
  await app2?.close();
  await b2?.stop();
  await b1?.stop();
  await zk?.stop();
  for (const b of [b1, b2]) if (b) removeDir(b.logDir);
});

describe('brokers and controller', () => {
  it('GET /v1/brokers lists the live brokers with the controller flag and partition counts', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/brokers' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.controllerId).toBe(1);
    expect(body.brokers.map((b: { id: number }) => b.id).sort()).toEqual([1, 2]);
    const one = body.brokers.find((b: { id: number }) => b.id === 1);
    expect(one).toMatchObject({ isController: true, replicaPartitions: 2 });
    expect(one.endpoints[0]).toMatchObject({ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: b1.port });
  });

  it('GET /v1/brokers/:id answers one broker, 404 GREGOR_ERR_UNKNOWN_BROKER for a dead one, 400 for a bad id', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/brokers/2' })).json()).toMatchObject({ id: 2, isController: false });
    const missing = await app.inject({ method: 'GET', url: '/v1/brokers/77' });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'GREGOR_ERR_UNKNOWN_BROKER']);
    expect((await app.inject({ method: 'GET', url: '/v1/brokers/-1' })).json().error.code).toBe('GREGOR_ERR_VALIDATION');
  });

  it('GET /v1/controller reads /controller and the epoch from ZooKeeper', async () => {
    const body = (await app2.inject({ method: 'GET', url: '/v1/controller' })).json();
    expect(body).toMatchObject({ controllerId: 1, metadataControllerId: 1, thisBrokerIsController: false });
    expect(body.controllerEpoch).toBeGreaterThanOrEqual(1);
    expect((await app.inject({ method: 'GET', url: '/v1/controller' })).json().thisBrokerIsController).toBe(true);
  });
});

describe('records, per-replica state and metrics', () => {
  it('produces a few records through the API (token required) and fetches them back', async () => {
    const url = `/v1/topics/${TOPIC}/partitions/1/records`;
    const payload = { records: [{ key: 'k1', value: 'one', headers: { h: 'x' } }, { value: 'two' }, { key: null, value: null }] };
    expect((await app.inject({ method: 'POST', url, payload })).statusCode).toBe(401);
    const res = await app.inject({ method: 'POST', url, headers: auth, payload });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ topic: TOPIC, partition: 1, baseOffset: 0, count: 3 });
    const got = await app2.inject({ method: 'GET', url: `${url}?offset=1&limit=5` });
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json()).toMatchObject({ partition: 1, highWatermark: 3, nextOffset: 3, records: [{ offset: 1, key: null, value: 'two' }, { offset: 2, value: null }] });
    const first = (await app2.inject({ method: 'GET', url })).json().records[0];
    expect(first).toMatchObject({ offset: 0, key: 'k1', value: 'one', headers: { h: 'x' } });
    // Record contents are data, not metadata: with a token configured, reading them needs it too.
    expect((await app.inject({ method: 'GET', url })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url, headers: auth })).json().records).toHaveLength(3);
    expect((await app.inject({ method: 'GET', url: `/v1/topics/${TOPIC}/partitions/9/records`, headers: auth })).json().error.code).toBe('GREGOR_ERR_UNKNOWN_PARTITION');
    expect((await app.inject({ method: 'GET', url: `${url}?limit=1000`, headers: auth })).statusCode).toBe(400);
  });

  it('describes each replica: complete from the leader, partial elsewhere', async () => {
    const producer = new Producer(client, { acks: -1 });
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 5 }, (_, i) => ({ value: `r${i}`, partition: 0 })) });
    const leader0 = b1.server.metadataCache.partitions(TOPIC).find((p) => p.partition === 0)!.leader;
    const fromLeader = leader0 === 1 ? app : app2;
    const fromOther = leader0 === 1 ? app2 : app;
    await waitFor(async () => {
      const d: TopicDescription = (await fromLeader.inject({ method: 'GET', url: `/v1/topics/${TOPIC}` })).json();
      const p0 = d.partitions.find((p) => p.partition === 0)!;
      return p0.replicaStatesSource === 'leader' && p0.replicaStates.every((r) => r.logEndOffset === 5 && r.inSync && r.lag === 0);
    }, 10_000, 'every replica at LEO 5 in the leader\'s view');
    const other: TopicDescription = (await fromOther.inject({ method: 'GET', url: `/v1/topics/${TOPIC}` })).json();
    const p0 = other.partitions.find((p) => p.partition === 0)!;
    expect(p0.replicaStatesSource).toBe('partial');
    expect(p0.replicaStates.find((r) => r.brokerId === leader0)).toMatchObject({ logEndOffset: 5, highWatermark: 5 });
  });

  it('GET /metrics: traffic, request rates and latencies, partition gauges, controller flag', async () => {
    const producer = new Producer(client, { acks: -1 });
    // Both partitions (one led by each broker): keyless records would all stick to one, and broker 1 could see no Produce.
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 7 }, (_, i) => ({ value: `m${i}`, partition: i % 2 })) });
    const [text1, text2] = [(await app.inject({ method: 'GET', url: '/metrics' })).body, (await app2.inject({ method: 'GET', url: '/metrics' })).body];
    expect(metric(text1, 'gregor_active_controller')).toBe(1);
    expect(metric(text2, 'gregor_active_controller')).toBe(0);
    expect(metric(text1, 'gregor_under_replicated_partitions')).toBe(0);
    expect(metric(text1, 'gregor_offline_partitions')).toBe(0);
    expect(metric(text1, 'gregor_requests_total', { api: 'Produce' })).toBeGreaterThan(0);
    expect(metric(text1, 'gregor_request_duration_seconds_count', { api: 'Metadata' })).toBeGreaterThan(0);
    expect(metric(text1, 'gregor_isr_shrinks_total')).toBeGreaterThanOrEqual(0);
    expect(metric(text1, 'gregor_isr_expands_total')).toBeGreaterThanOrEqual(0);
    // The leaders together appended every produced record of the topic: 3 (API) + 5 + 7.
    expect(metric(text1, 'gregor_messages_in_total', { topic: TOPIC }) + metric(text2, 'gregor_messages_in_total', { topic: TOPIC })).toBe(15);
    expect(metric(text1, 'gregor_bytes_in_total', { topic: TOPIC }) + metric(text2, 'gregor_bytes_in_total', { topic: TOPIC })).toBeGreaterThan(15 * 10);
    expect(metric(text1, 'gregor_replication_bytes_out_total', { topic: TOPIC }) + metric(text2, 'gregor_replication_bytes_out_total', { topic: TOPIC })).toBeGreaterThan(0);
    expect(metric(text1, 'gregor_bytes_out_total', { topic: TOPIC }) + metric(text2, 'gregor_bytes_out_total', { topic: TOPIC })).toBeGreaterThan(0);
    // Each broker follows the other's leader with an incremental fetch session (KIP-227): after its full
    // fetch, the follower's long-polls (replica.fetch.wait.max.ms) are incremental.
    for (const a of [app, app2]) {
      const text = await waitFor(async () => {
        const t = (await a.inject({ method: 'GET', url: '/metrics' })).body;
        const full = metric(t, 'gregor_fetch_requests_by_session_total', { fetcher: 'follower', kind: 'full' });
        return full >= 1 && metric(t, 'gregor_fetch_requests_by_session_total', { fetcher: 'follower', kind: 'incremental' }) > full ? t : null;
      }, 10_000, 'incremental follower fetches');
      expect(metric(text, 'gregor_incremental_fetch_sessions')).toBeGreaterThanOrEqual(1);
      expect(metric(text, 'gregor_incremental_fetch_partitions_cached')).toBeGreaterThanOrEqual(1);
      expect(metric(text, 'gregor_incremental_fetch_session_evictions_total')).toBe(0);
      expect(metric(text, 'gregor_fetch_requests_by_session_total', { fetcher: 'follower', kind: 'session_id_not_found' })).toBe(0);
    }
  });

  it('GET /metrics on the controller: consumer group lag per partition from the committed offsets', async () => {
    await b1.server.zk.commitConsumerOffset('lagging-group', TOPIC, 1, 1);
    const d: TopicDescription = (await app.inject({ method: 'GET', url: `/v1/topics/${TOPIC}` })).json();
    const hw = d.partitions.find((p) => p.partition === 1)!.highWatermark!;
    expect(hw).toBeGreaterThanOrEqual(3);
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metric(text, 'gregor_consumer_group_lag', { group: 'lagging-group', topic: TOPIC, partition: '1' })).toBe(hw - 1);
    expect((await app2.inject({ method: 'GET', url: '/metrics' })).body).not.toMatch(/^gregor_consumer_group_lag\{/m);
  });

  it('countRecords reads recordsCount of every batch in a buffer', () => {
    const batch = (n: number) => {
      const b = Buffer.alloc(61 + 10);
      b.writeInt32BE(b.length - 12, 8);
      b.writeInt32BE(n, 57);
      return b;
    };
    expect(countRecords(Buffer.concat([batch(3), batch(4)]))).toBe(7);
    expect(countRecords(Buffer.alloc(0))).toBe(0);
  });
});

describe('topic configs', () => {
  it('PATCH sets and deletes overrides in ZooKeeper with a change notification; GET reads them', async () => {
    const url = `/v1/topics/${TOPIC}/configs`;
    expect((await app.inject({ method: 'GET', url })).json()).toEqual({ name: TOPIC, configs: {} });
    const before = (await b1.server.zk.zk.getChildren(configChangesPath)).length;
    const set = await app.inject({ method: 'PATCH', url, headers: auth, payload: { set: { 'retention.ms': '60000', 'cleanup.policy': 'delete' } } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().configs).toEqual({ 'retention.ms': '60000', 'cleanup.policy': 'delete' });
    expect(await b2.server.zk.getTopicConfig(TOPIC)).toEqual({ 'retention.ms': '60000', 'cleanup.policy': 'delete' });
    expect((await b1.server.zk.zk.getChildren(configChangesPath)).length).toBe(before + 1);
    const del = await app.inject({ method: 'PATCH', url, headers: auth, payload: { delete: ['cleanup.policy'] } });
    expect(del.json().configs).toEqual({ 'retention.ms': '60000' });
    const bad = await app.inject({ method: 'PATCH', url, headers: auth, payload: { set: { 'retention.ms': 'soon' } } });
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, 'GREGOR_ERR_INVALID_CONFIG']);
    const unknown = await app.inject({ method: 'PATCH', url, headers: auth, payload: { set: { 'no.such.config': '1' } } });
    expect(unknown.json().error.code).toBe('GREGOR_ERR_INVALID_CONFIG');
    expect((await app.inject({ method: 'PATCH', url, headers: auth, payload: {} })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/v1/topics/nope/configs' })).json().error.code).toBe('GREGOR_ERR_UNKNOWN_TOPIC');
  });
});

describe('partitions: preferred replica election and reassignment', () => {
  it('validates before writing any znode', async () => {
    const unknownPartition = await app.inject({ method: 'POST', url: '/v1/partitions/reassignments', headers: auth, payload: { partitions: [{ topic: TOPIC, partition: 5, replicas: [1, 2] }] } });
    expect(unknownPartition.json().error.code).toBe('GREGOR_ERR_UNKNOWN_PARTITION');
    const unknownBroker = await app.inject({ method: 'POST', url: '/v1/partitions/reassignments', headers: auth, payload: { partitions: [{ topic: TOPIC, partition: 0, replicas: [1, 9] }] } });
    expect(unknownBroker.json().error.code).toBe('GREGOR_ERR_INVALID_REPLICA_ASSIGNMENT');
    const dup = await app.inject({ method: 'POST', url: '/v1/partitions/reassignments', headers: auth, payload: { partitions: [{ topic: TOPIC, partition: 0, replicas: [1, 1] }] } });
    expect(dup.json().error.code).toBe('GREGOR_ERR_VALIDATION');
    expect((await app.inject({ method: 'POST', url: '/v1/partitions/preferred-election', payload: {} })).statusCode).toBe(401);
    expect(await b1.server.zk.zk.exists(reassignPartitionsPath)).toBeFalsy();
  });

  it('an election already in progress answers 409 GREGOR_ERR_OPERATION_IN_PROGRESS', async () => {
    // Written while the controller is away, so that the znode stays.
    const fake = { version: 1, partitions: [{ topic: TOPIC, partition: 0 }] };
    await b1.server.zk.zk.create(preferredReplicaElectionPath, JSON.stringify(fake), 'persistent').catch(() => {});
    const res = await app.inject({ method: 'POST', url: '/v1/partitions/preferred-election', headers: auth, payload: {} });
    if (res.statusCode === 202) return; // the controller already consumed the znode: nothing to collide with
    expect([res.statusCode, res.json().error.code]).toEqual([409, 'GREGOR_ERR_OPERATION_IN_PROGRESS']);
  });

  it('POST preferred-replica-election writes Kafka\'s JSON; GET shows progress until the controller removes it', async () => {
    await waitFor(async () => !(await b1.server.zk.zk.exists(preferredReplicaElectionPath)), 20_000, 'earlier election done');
    const res = await app.inject({ method: 'POST', url: '/v1/partitions/preferred-election', headers: auth, payload: { partitions: [{ topic: TOPIC, partition: 0 }] } });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ inProgress: true, partitions: [{ topic: TOPIC, partition: 0 }] });
    await waitFor(async () => !(await app.inject({ method: 'GET', url: '/v1/partitions/preferred-election' })).json().inProgress, 20_000, 'controller to finish the election');
  });

  it('POST reassignment moves a partition to new replicas; GET reports each partition done', async () => {
    const current = b1.server.metadataCache.partitions(TOPIC).find((p) => p.partition === 1)!.replicas;
    const target = [...current].reverse();
    const res = await app.inject({ method: 'POST', url: '/v1/partitions/reassignments', headers: auth, payload: { partitions: [{ topic: TOPIC, partition: 1, replicas: target }] } });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().partitions[0]).toMatchObject({ topic: TOPIC, partition: 1, targetReplicas: target });
    await waitFor(async () => !(await app.inject({ method: 'GET', url: '/v1/partitions/reassignments' })).json().inProgress, 30_000, 'reassignment done');
    await waitFor(() => JSON.stringify(b1.server.metadataCache.partitions(TOPIC).find((p) => p.partition === 1)!.replicas) === JSON.stringify(target), 15_000, 'new replica order in metadata');
  });
});

describe('OpenAPI document', () => {
  it('GET /docs/json serves OpenAPI 3 with every route and its schemas', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.0.3');
    for (const path of ['/v1/topics', '/v1/topics/{name}', '/v1/topics/{name}/configs', '/v1/brokers', '/v1/controller', '/v1/partitions/reassignments', '/v1/topics/{name}/partitions/{partition}/records', '/healthz']) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    expect(doc.paths['/v1/topics'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
  });

  it('GET /docs serves Swagger UI with its assets from the broker itself', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs' });
    const html = page.statusCode === 302 ? await app.inject({ method: 'GET', url: page.headers.location as string }) : page;
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain('swagger-ui');
    const script = await app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body.length).toBeGreaterThan(100_000);
  });
});

/** The value of one sample (labels in any order; broker_id is always there), or 0 when absent. */
function metric(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...m[2]!.matchAll(/([a-z_]+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) return Number(m[3]);
  }
  return 0;
}
