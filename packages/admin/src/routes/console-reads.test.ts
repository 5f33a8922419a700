import { KafkaClient, Producer } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { freePorts } from '@gregor/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../../test/support/in-process-cluster.js';
import { startAdminServer, type AdminServer, type TopicDescription } from '../index.js';

// What the web console reads, against two real brokers whose admin servers listen on the ports their
// /brokers/ids registrations advertise (gregor_admin_url), so that each can reach the other's.
const TOKEN = 'reads-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const TOPIC = 'reads';
let zk: TestZooKeeper;
let brokers: TestBroker[] = [];
let admins: AdminServer[] = [];
let client: KafkaClient;
let producedAt = 0;

const get = (i: number, url: string, headers: Record<string, string> = {}) => admins[i]!.app.inject({ method: 'GET', url, headers });

beforeAll(async () => {
  zk = await startZooKeeper();
  const httpPorts = await freePorts(2);
  const props = (i: number) => ({ 'http.port': String(httpPorts[i]), 'auto.leader.rebalance.enable': 'false' });
  brokers = [await startBroker(zk, 1, props(0)), await startBroker(zk, 2, props(1))];
  await waitFor(() => brokers.every((b) => b.server.metadataCache.aliveBrokers().length === 2), 15_000, 'both brokers');
  admins = await Promise.all(brokers.map((b, i) => startAdminServer(b.server, { host: '127.0.0.1', port: httpPorts[i]!, logger: silentLogger(), authToken: TOKEN })));
  const created = await admins[0]!.app.inject({ method: 'POST', url: '/v1/topics', headers: auth, payload: { name: TOPIC, partitions: 2, replicationFactor: 2 } });
  expect(created.statusCode, created.body).toBe(201);
  await waitFor(() => brokers[1]!.server.metadataCache.partitions(TOPIC).every((p) => p.leader >= 0) && brokers[1]!.server.metadataCache.partitions(TOPIC).length === 2, 15_000, 'topic on broker 2');
  client = new KafkaClient({ brokers: brokers[0]!.bootstrap });
  const producer = new Producer(client, { acks: -1 });
  await producer.send({ topic: TOPIC, messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, key: `k${i % 3}`, value: `v${i}`, headers: { n: String(i) } })) });
  producedAt = Date.now();
  await new Promise((r) => setTimeout(r, 20));
  await producer.send({ topic: TOPIC, messages: [{ partition: 0, key: 'late', value: Buffer.from([0, 1, 2, 255]) }] });
}, 60_000);

afterAll(async () => {
  await client?.close();
  for (const a of admins) await a.close();
  for (const b of brokers.slice().reverse()) await b.stop();
  await zk?.stop();
  for (const b of brokers) removeDir(b.logDir);
});

describe('cluster reads for the console', () => {
  it('registers each broker\'s admin URL in ZooKeeper', async () => {
    const reg = await brokers[0]!.server.zk.getBroker(2);
    expect(reg?.adminUrl).toBe(`http://127.0.0.1:${admins[1]!.port}`);
  });

  it('GET /v1/zookeeper: the standalone server as srvr reports it, and this broker\'s session', async () => {
    const res = await get(0, '/v1/zookeeper');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ connectString: zk.connectString, chroot: null, sessionHealthy: true, serving: 1, quorum: 'standalone' });
    expect(body.servers).toHaveLength(1);
    expect(body.servers[0]).toMatchObject({ host: '127.0.0.1', mode: 'standalone', error: null });
    expect(body.servers[0].nodeCount).toBeGreaterThan(10);
    expect(body.servers[0].zxid).toMatch(/^0x[0-9a-f]+$/);
  });

  it('GET /v1/partitions: leadership of every partition, filtered with ?only=', async () => {
    const all = (await get(1, '/v1/partitions')).json();
    expect(all).toMatchObject({ total: 2, underReplicated: 0, offline: 0, notPreferredLeader: 0 });
    expect(all.partitions.map((p: { topic: string; partition: number }) => `${p.topic}-${p.partition}`)).toEqual([`${TOPIC}-0`, `${TOPIC}-1`]);
    expect(all.partitions[0]).toMatchObject({ underReplicated: false, offline: false, preferredLeader: true });
    expect((await get(1, '/v1/partitions?only=under-replicated')).json().partitions).toEqual([]);
    expect((await get(1, '/v1/partitions?only=everything')).json().error.code).toBe('GREGOR_ERR_VALIDATION');
  });

  it('GET /v1/topics?stats=true: messages, bytes of one copy and the sum of high watermarks per topic', async () => {
    const plain = (await get(1, '/v1/topics')).json().topics[0];
    expect(plain).not.toHaveProperty('messages');
    const t = (await get(1, '/v1/topics?stats=true')).json().topics.find((x: { name: string }) => x.name === TOPIC);
    expect(t).toMatchObject({ name: TOPIC, partitions: 2, messages: 11, highWatermarkSum: 11 });
    expect(t.sizeBytes).toBeGreaterThan(11 * 10);
  });

  it('GET /v1/topics/:name from a follower completes follower LEOs from the leader\'s admin server', async () => {
    const leader0 = brokers[0]!.server.metadataCache.partitions(TOPIC).find((p) => p.partition === 0)!.leader;
    const other = leader0 === 1 ? 1 : 0;
    await waitFor(async () => {
      const d: TopicDescription = (await get(other, `/v1/topics/${TOPIC}`)).json();
      const p0 = d.partitions.find((p) => p.partition === 0)!;
      return p0.replicaStatesSource === 'leader' && p0.replicaStates.every((r) => r.logEndOffset === 11 && r.lag === 0);
    }, 10_000, 'complete replica states through the leader');
    const local: TopicDescription = (await get(other, `/v1/topics/${TOPIC}?peers=false`)).json();
    expect(local.partitions.find((p) => p.partition === 0)!.replicaStatesSource).toBe('partial');
  });

  it('GET /v1/topics/:name/configs?all=true: every config with its source and synonyms', async () => {
    const url = `/v1/topics/${TOPIC}/configs`;
    const before = (await get(0, `${url}?all=true`)).json();
    const retention = before.entries.find((e: { name: string }) => e.name === 'retention.ms');
    expect(retention).toMatchObject({ source: 'DEFAULT_CONFIG', readOnly: false, sensitive: false });
    expect(retention.documentation).toEqual(expect.any(String));
    await admins[0]!.app.inject({ method: 'PATCH', url, headers: auth, payload: { set: { 'retention.ms': '7200000' } } });
    const after = (await get(1, `${url}?all=true`)).json();
    expect(after.configs).toEqual({ 'retention.ms': '7200000' });
    const set = after.entries.find((e: { name: string }) => e.name === 'retention.ms');
    expect(set).toMatchObject({ value: '7200000', source: 'DYNAMIC_TOPIC_CONFIG' });
    expect(set.synonyms[0]).toMatchObject({ name: 'retention.ms', value: '7200000', source: 'DYNAMIC_TOPIC_CONFIG' });
    expect((await get(0, `${url}?all=yes`)).json().error.code).toBe('GREGOR_ERR_VALIDATION');
  });

  it('GET records: from a time, by key (exact or contains, bounded scan), as base64 (record contents need the token)', async () => {
    const url = `/v1/topics/${TOPIC}/partitions/0/records`;
    expect((await get(1, `${url}?offset=0`)).statusCode).toBe(401);
    const fromTime = (await get(1, `${url}?timestamp=${producedAt + 10}`, auth)).json();
    expect(fromTime).toMatchObject({ startOffset: 10, records: [{ offset: 10, key: 'late' }] });
    const future = (await get(1, `${url}?timestamp=${Date.now() + 3_600_000}`, auth)).json();
    expect(future).toMatchObject({ startOffset: 11, nextOffset: 11, records: [] });
    const byKey = (await get(1, `${url}?key=k1&limit=100`, auth)).json();
    expect(byKey.records.map((r: { offset: number }) => r.offset)).toEqual([1, 4, 7]);
    expect(byKey).toMatchObject({ scanned: 11, nextOffset: 11 });
    const contains = (await get(1, `${url}?key=k&keyMatch=contains&limit=100`, auth)).json();
    expect(contains.records).toHaveLength(10);
    const bounded = (await get(1, `${url}?key=k2&maxScan=4`, auth)).json();
    expect(bounded).toMatchObject({ scanned: 4, nextOffset: 4, records: [{ offset: 2 }] });
    const next = (await get(1, `${url}?key=k2&offset=${bounded.nextOffset}&limit=1`, auth)).json();
    expect(next.records.map((r: { offset: number }) => r.offset)).toEqual([5]);
    const raw = (await get(1, `${url}?offset=10&encoding=base64`, auth)).json();
    expect(raw).toMatchObject({ encoding: 'base64', records: [{ key: Buffer.from('late').toString('base64'), value: Buffer.from([0, 1, 2, 255]).toString('base64') }] });
    const headers = (await get(1, `${url}?offset=3&limit=1&encoding=base64`, auth)).json().records[0].headers;
    expect(headers).toEqual({ n: Buffer.from('3').toString('base64') });
    const both = await get(1, `${url}?offset=1&timestamp=1`, auth);
    expect([both.statusCode, both.json().error.code]).toEqual([400, 'GREGOR_ERR_INVALID_REQUEST']);
  });

  it('GET /v1/metrics/traffic: each broker\'s own counters, the others\' read from their admin servers', async () => {
    const cluster = (await get(1, '/v1/metrics/traffic')).json();
    expect(cluster.brokers.map((b: { brokerId: number }) => b.brokerId)).toEqual([1, 2]);
    for (const b of cluster.brokers) expect(b).toMatchObject({ error: null, timestampMs: expect.any(Number) });
    // The partitions' leaders appended every record produced by clients (the topic lives on both brokers).
    const messagesIn = cluster.brokers.reduce((s: number, b: { messagesIn: number }) => s + b.messagesIn, 0);
    expect(messagesIn).toBe(11);
    expect(cluster.brokers.reduce((s: number, b: { bytesIn: number }) => s + b.bytesIn, 0)).toBeGreaterThan(11 * 10);
    const local = (await get(0, '/v1/metrics/traffic?local=true')).json();
    expect(local.brokers).toHaveLength(1);
    expect(local.brokers[0].brokerId).toBe(1);
  });
});

describe('the console at /ui', () => {
  it('serves the page, its stylesheet and its modules with a same-origin CSP; nothing else from dist', async () => {
    const redirect = await get(0, '/ui');
    expect([redirect.statusCode, redirect.headers.location]).toEqual([302, 'ui/']);
    const page = await get(0, '/ui/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.body).toContain('<script type="module" src="./js/main.js">');
    const css = await get(0, '/ui/app.css');
    expect([css.statusCode, css.headers['content-type']]).toEqual([200, 'text/css; charset=utf-8']);
    const main = await get(0, '/ui/js/main.js');
    expect(main.statusCode).toBe(200);
    expect(main.headers['content-type']).toMatch(/javascript/);
    expect(main.body).toContain('/v1/cluster');
    const chart = await get(0, '/ui/js/chart-geometry.js');
    expect(chart.statusCode).toBe(200);
    expect((await get(0, '/ui/js/main.d.ts')).statusCode).toBe(404);
    expect((await get(0, '/ui/js/%2e%2e/%2e%2e/package.json')).statusCode).toBe(404);
  });

  it('the OpenAPI document lists the routes the console added, and hides /ui', async () => {
    const doc = (await get(0, '/docs/json')).json();
    for (const path of ['/v1/zookeeper', '/v1/partitions', '/v1/metrics/traffic']) expect(Object.keys(doc.paths)).toContain(path);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/ui'))).toEqual([]);
    expect(doc.paths['/v1/groups/{id}/offsets/reset'].post.requestBody.content['application/json'].schema.properties.dryRun).toBeDefined();
  });
});
