import { mkdirSync } from 'node:fs';
import { Admin, fetchPartition, KafkaClient, listOffsets, Producer } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { ZookeeperConsumerConnector } from '@gregor/consumer';
import { Kafka, logLevel, type Admin as KafkaJsAdmin } from 'kafkajs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { waitFor } from '../support/in-process-cluster.js';
import { ProcessCluster } from '../support/process-cluster.js';

// The web console in headless Chromium against a real cluster: a 3-node ZooKeeper ensemble and three `gregor broker`
// processes with HTTP admin servers and an admin token. The console is the one broker 2 serves (not
// the controller), so its answers about other brokers travel. Every page is checked against what the
// cluster says through gregor's client, kafkajs and ZooKeeper. CONSOLE_SCREENSHOTS=<dir> saves PNGs.
const TOKEN = 'console-token';
const SHOTS = process.env.CONSOLE_SCREENSHOTS;
const TOPIC = 'orders';
const GROUP = 'billing';

let cluster: ProcessCluster;
let browser: TestBrowser;
let page: Page;
let client: KafkaClient;
let producer: Producer;
let kafkajsAdmin: KafkaJsAdmin;
let base: string;
let produced = 0;
/** Between the first 30 records and the next ones. */
let secondBatchAt = 0;

async function produce(n: number, partition?: number): Promise<void> {
  const from = produced;
  produced += n;
  await producer.send({
    topic: TOPIC,
    messages: Array.from({ length: n }, (_, k) => {
      const i = from + k;
      return { partition: partition ?? i % 3, key: `customer-${i % 5}`, value: JSON.stringify({ id: i, amount: i * 10 }), headers: { source: 'test', seq: String(i) } };
    }),
  });
}

async function shot(name: string, selector?: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.mouse.move(0, 0);
  if (selector) {
    await page.locator(selector).screenshot({ path: `${SHOTS}/${name}.png` });
    return;
  }
  // The top of the page (the docs show these; small files).
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.min(height, 1000) } });
}

async function open(hash: string): Promise<void> {
  await page.goto(`${base}/ui/${hash}`);
}

/** The text of every cell of a data table, row by row (an empty table has no rows). */
async function cells(testId: string): Promise<string[][]> {
  return page.locator(`[data-testid="${testId}"] tbody tr`).evaluateAll((trs) =>
    trs.filter((tr) => !tr.querySelector('td.empty')).map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
  );
}

async function text(testId: string): Promise<string> {
  return ((await page.locator(`[data-testid="${testId}"]`).first().textContent()) ?? '').trim();
}

async function highWatermarks(topic: string, partitions: number): Promise<number[]> {
  const ends = await listOffsets(client, topic, Array.from({ length: partitions }, (_, partition) => ({ partition, timestamp: -1 })));
  return Array.from({ length: partitions }, (_, p) => ends.get(p)!.offset);
}

/** Partitions (of the test topic and __consumer_offsets) with a replica on the broker. */
async function expectedReplicasOf(broker: number): Promise<number> {
  let n = 0;
  for (const topic of [TOPIC, '__consumer_offsets']) {
    for (const replicas of (await cluster.kafkaZk.getTopicAssignment(topic))!.assignment.partitions.values()) if (replicas.includes(broker)) n++;
  }
  return n;
}

async function committed(group: string): Promise<number[]> {
  const [t] = await kafkajsAdmin.fetchOffsets({ groupId: group, topics: [TOPIC] });
  return t!.partitions.sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
}

beforeAll(async () => {
  cluster = await ProcessCluster.start({
    brokers: 3,
    zookeepers: 3,
    httpAdmin: true,
    brokerProps: {
      'http.auth.token': TOKEN,
      'offsets.topic.num.partitions': '3',
      'offsets.topic.replication.factor': '2',
      'group.initial.rebalance.delay.ms': '0',
      'auto.leader.rebalance.enable': 'false',
    },
  });
  base = cluster.httpUrl(2);
  client = new KafkaClient({ brokers: cluster.bootstrap() });
  await new Admin(client).createTopics([{ name: TOPIC, numPartitions: 3, replicationFactor: 2 }]);
  producer = new Producer(client, { acks: -1 });
  await produce(30);
  // The next batches start in a later second than this one (the browser's time input has seconds).
  await new Promise((r) => setTimeout(r, 1100 - (Date.now() % 1000)));
  secondBatchAt = Date.now();

  // A coordinator group (kafkajs) that read the first 30 records, committed and left: Empty, with offsets.
  const kafka = new Kafka({ clientId: 'console-test', brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 200 } });
  kafkajsAdmin = kafka.admin();
  await kafkajsAdmin.connect();
  const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  let seen = 0;
  await consumer.run({ autoCommitInterval: 100, eachMessage: async () => void seen++ });
  await waitFor(() => seen >= 30, 60_000, 'kafkajs to read 30 records');
  await consumer.stop();
  await consumer.disconnect();
  await waitFor(async () => (await committed(GROUP)).reduce((a, b) => a + b, 0) === 30, 20_000, 'committed offsets');
  await produce(15); // lag 15

  // A ZooKeeper consumer-connector group with committed offsets and no live consumer.
  const connector = await ZookeeperConsumerConnector.create(
    { 'group.id': 'audit', 'consumer.id': 'c1', 'zookeeper.connect': cluster.ensemble.connectString, 'auto.offset.reset': 'smallest', 'auto.commit.enable': 'false' },
    { logger: silentLogger() },
  );
  const [stream] = (await connector.createMessageStreams({ [TOPIC]: 1 }))[TOPIC]!;
  const iterator = stream![Symbol.asyncIterator]();
  for (let i = 0; i < 6; i++) await iterator.next();
  await connector.commitOffsets();
  await connector.shutdown();

  browser = await launchBrowser();
  page = await browser.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await kafkajsAdmin?.disconnect().catch(() => {});
  await client?.close();
  await cluster?.stop();
});

describe('web console in Chromium against a 3-broker cluster', () => {
  it('overview: brokers, controller and the ZooKeeper ensemble as the cluster reports them', async () => {
    await open('#/overview');
    await expect.poll(async () => (await cells('brokers')).map((r) => r[0]), { timeout: 15_000 }).toEqual(['1', '2', '3']);
    const brokers = await cells('brokers');
    for (const [id, address] of brokers) expect(address).toBe(cluster.broker(Number(id)).bootstrap);
    const controller = await cluster.controllerId();
    expect(await text('controller-id')).toBe(`broker ${controller}`);
    expect(brokers.find((r) => r[0] === String(controller))![4]).toBe('controller');
    // Each server of the 3-node ensemble as its srvr command reports it: one leader, two followers.
    await expect.poll(async () => (await cells('zookeeper')).map((r) => r[1]).sort(), { timeout: 15_000 }).toEqual(['follower', 'follower', 'leader']);
    expect((await cells('zookeeper')).map((r) => r[0])).toEqual(cluster.ensemble.connectString.split(','));
    expect(await text('card-zookeeper')).toBe('ZooKeeper3/3');
    expect(await text('card-urp')).toBe('Under-replicated0');
    expect(await text('card-offline')).toBe('Offline0');
    expect(await cells('under-replicated')).toEqual([]);
    await shot('overview');
  });

  it('topics: list with message counts, sizes and rates; detail with each replica\'s LEO, HW and lag', async () => {
    await open('#/topics');
    await expect.poll(async () => (await cells('topics')).find((r) => r[0] === TOPIC), { timeout: 15_000 }).toBeDefined();
    let row = (await cells('topics')).find((r) => r[0] === TOPIC)!;
    expect(row.slice(0, 4)).toEqual([TOPIC, '3', '2', String(produced)]);
    expect(row[4]).toMatch(/^\d+(\.\d+)? (B|KiB)$/);
    // A rate shows once two samples 5 s apart saw the high watermarks move.
    const rateShown = waitFor(async () => {
      row = (await cells('topics')).find((r) => r[0] === TOPIC)!;
      return Number(row[5]) > 0 ? row : null;
    }, 30_000, 'a message rate');
    await new Promise((r) => setTimeout(r, 1000));
    await produce(30);
    expect(Number((await rateShown)[5])).toBeGreaterThan(0);
    expect(row[3]).toBe(String(produced));

    await open(`#/topics/${TOPIC}`);
    await expect.poll(async () => (await cells('partitions')).length, { timeout: 15_000 }).toBe(3);
    const hws = await highWatermarks(TOPIC, 3);
    const assignment = (await cluster.kafkaZk.getTopicAssignment(TOPIC))!.assignment.partitions;
    for (let p = 0; p < 3; p++) {
      const state = (await cluster.partitionState(TOPIC, p))!;
      const shown = (await cells('partitions'))[p]!;
      expect(shown[1]).toBe(String(state.leader));
      expect(shown[3]).toBe(assignment.get(p)!.join(', '));
      expect(shown[4]).toBe(state.isr.join(', '));
      expect(shown[6]).toBe(String(hws[p]));
      // Every replica's LEO as its leader tracks it, also for partitions led by brokers other than 2.
      const replicas = () =>
        page.locator(`[data-testid="replicas-${p}"] li[data-broker]`).evaluateAll((lis) => lis.map((li) => [(li as HTMLElement).dataset.broker, (li as HTMLElement).dataset.leo, (li as HTMLElement).dataset.lag]));
      await expect.poll(replicas, { timeout: 10_000 }).toEqual(assignment.get(p)!.map((b) => [String(b), String(hws[p]), '0']));
    }
    await shot('topic');
  });

  it('creates a topic through the UI (asking for the token), alters its configs with their sources, adds partitions, deletes it', async () => {
    await open('#/topics?create=true');
    expect(await text('auth-state')).toBe('no token');
    await page.fill('[data-testid="create-name"]', 'console-made');
    await page.fill('[data-testid="create-partitions"]', '4');
    await page.fill('[data-testid="create-rf"]', '2');
    await page.fill('[data-testid="create-configs"]', 'retention.ms=3600000\n# a comment\ncleanup.policy=delete');
    await page.click('[data-testid="create-submit"]');
    // The write answered 401: the console asks for the token, keeps it in sessionStorage and retries.
    await page.waitForSelector('[data-testid="token-dialog"]');
    await page.fill('[data-testid="token-input"]', TOKEN);
    await page.click('[data-testid="token-save"]');
    await page.waitForURL(/#\/topics\/console-made$/, { timeout: 30_000 });
    expect(await text('auth-state')).toBe('token set');
    expect(await page.evaluate(() => sessionStorage.getItem('gregor.adminToken'))).toBe(TOKEN);

    const assignment = (await cluster.kafkaZk.getTopicAssignment('console-made'))!.assignment.partitions;
    expect([...assignment.values()].map((r) => r.length)).toEqual([2, 2, 2, 2]);
    expect(await cluster.kafkaZk.getTopicConfig('console-made')).toEqual({ 'retention.ms': '3600000', 'cleanup.policy': 'delete' });
    await expect.poll(async () => (await cells('partitions')).length, { timeout: 15_000 }).toBe(4);
    await expect.poll(() => text('config-source-retention.ms'), { timeout: 10_000 }).toBe('DYNAMIC_TOPIC_CONFIG');
    expect(await text('config-value-retention.ms')).toBe('3600000');
    // Every config with its source: segment.bytes comes from the broker's default.
    await page.click('[data-testid="only-overrides"]');
    expect(await text('config-source-segment.bytes')).toBe('DEFAULT_CONFIG');

    await page.fill('[data-testid="config-name"]', 'retention.ms');
    await page.fill('[data-testid="config-new-value"]', '7200000');
    await page.click('[data-testid="config-set"]');
    await expect.poll(() => text('config-value-retention.ms'), { timeout: 10_000 }).toBe('7200000');
    expect(await cluster.kafkaZk.getTopicConfig('console-made')).toEqual({ 'retention.ms': '7200000', 'cleanup.policy': 'delete' });
    await page.click('[data-testid="config-delete-cleanup.policy"]');
    await expect.poll(() => cluster.kafkaZk.getTopicConfig('console-made'), { timeout: 10_000 }).toEqual({ 'retention.ms': '7200000' });
    await expect.poll(() => text('config-source-cleanup.policy'), { timeout: 10_000 }).toBe('DEFAULT_CONFIG');
    await shot('topic-configs');

    await page.fill('[data-testid="partition-count"]', '6');
    await page.click('[data-testid="add-partitions"]');
    await expect.poll(async () => (await cells('partitions')).length, { timeout: 30_000 }).toBe(6);
    expect((await cluster.kafkaZk.getTopicAssignment('console-made'))!.assignment.partitions.size).toBe(6);

    await page.fill('[data-testid="delete-confirm"]', 'console-made');
    await page.click('[data-testid="delete-topic"]');
    await page.waitForURL(/#\/topics$/, { timeout: 30_000 });
    await waitFor(async () => (await cluster.kafkaZk.getTopicAssignment('console-made')) === null, 30_000, 'the topic to be deleted');
    await expect.poll(async () => (await cells('topics')).map((r) => r[0]), { timeout: 15_000 }).not.toContain('console-made');
  });

  it('message browser: by partition and offset, by time, by key; values as text, JSON and hex; headers', async () => {
    await open(`#/messages?topic=${TOPIC}&partition=1&mode=offset&offset=2&limit=10`);
    await expect.poll(async () => (await cells('records')).length, { timeout: 15_000 }).toBe(10);
    const expected = (await fetchPartition(client, { topic: TOPIC, partition: 1, offset: 2 })).records.slice(0, 10);
    const shown = await cells('records');
    expect(shown.map((r) => Number(r[1]))).toEqual(expected.map((r) => r.offset));
    expect(shown.map((r) => r[3])).toEqual(expected.map((r) => r.key!.toString()));
    expect(shown.map((r) => r[4])).toEqual(expected.map((r) => r.value!.toString()));
    expect(shown[0]![5]).toBe(`source: testseq: ${JSON.parse(expected[0]!.value!.toString()).id}`);

    await page.click('[data-testid="msg-format"] button[data-format="json"]');
    const pretty = await page.locator('[data-testid="record-value"]').first().textContent();
    expect(pretty).toBe(JSON.stringify(JSON.parse(expected[0]!.value!.toString()), null, 2));
    await shot('messages');
    await page.click('[data-testid="msg-format"] button[data-format="hex"]');
    const hex = (await page.locator('[data-testid="record-value"]').first().textContent())!;
    const bytes = expected[0]!.value!;
    expect(hex.split('\n')[0]!.slice(0, 10 + 3 * 8 - 1)).toBe(`00000000  ${[...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}`);

    // Search by key over every partition: exactly the records produced with that key.
    await page.click('[data-testid="msg-format"] button[data-format="text"]');
    await page.click('[data-testid="msg-mode"] button[data-mode="key"]');
    await page.selectOption('[data-testid="msg-partition"]', 'all');
    await page.selectOption('[data-testid="msg-limit"]', '100');
    await page.fill('[data-testid="msg-key"]', 'customer-3');
    await page.click('[data-testid="msg-read"]');
    const withKey = Array.from({ length: produced }, (_, i) => i).filter((i) => i % 5 === 3);
    await expect.poll(async () => (await cells('records')).length, { timeout: 15_000 }).toBe(withKey.length);
    const found = await cells('records');
    expect(new Set(found.map((r) => r[3]))).toEqual(new Set(['customer-3']));
    expect(found.map((r) => JSON.parse(r[4]!).id).sort((a, b) => a - b)).toEqual(withKey);

    // From a time: the records produced after the first 30.
    await page.click('[data-testid="msg-mode"] button[data-mode="timestamp"]');
    await page.selectOption('[data-testid="msg-partition"]', '0');
    const local = new Date(secondBatchAt - new Date(secondBatchAt).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    await page.fill('[data-testid="msg-time"]', local);
    await page.click('[data-testid="msg-read"]');
    const startAt = (await listOffsets(client, TOPIC, [{ partition: 0, timestamp: Math.floor(secondBatchAt / 1000) * 1000 }])).get(0)!.offset;
    await expect.poll(async () => Number((await cells('records'))[0]?.[1]), { timeout: 15_000 }).toBe(startAt);
    expect(startAt).toBeGreaterThanOrEqual(10);
  });

  it('consumer groups of both kinds: offsets and lag, a lag chart, an offset reset previewed by a dry run then executed', async () => {
    await open('#/groups');
    const hwSum = () => highWatermarks(TOPIC, 3).then((h) => h.reduce((a, b) => a + b, 0));
    await expect.poll(async () => (await cells('groups')).map((r) => r.slice(0, 3)), { timeout: 20_000 }).toEqual([
      ['audit', 'zookeeper', '–'],
      [GROUP, 'coordinator', 'Empty'],
    ]);
    const billingLag = (await hwSum()) - (await committed(GROUP)).reduce((a, b) => a + b, 0);
    await expect.poll(async () => (await cells('groups')).find((r) => r[0] === GROUP)![5], { timeout: 10_000 }).toBe(billingLag.toLocaleString('en-US'));
    await shot('groups');

    // The ZooKeeper group: its committed offsets are the /consumers znodes.
    await open('#/groups/audit?kind=zookeeper');
    await expect.poll(async () => (await cells('group-partitions')).length, { timeout: 15_000 }).toBe(3);
    const zkCommitted = await Promise.all([0, 1, 2].map((p) => cluster.kafkaZk.getConsumerOffset('audit', TOPIC, p)));
    expect((await cells('group-partitions')).map((r) => r[3])).toEqual(zkCommitted.map((o) => (o === null ? '–' : String(o))));

    await open(`#/groups/${GROUP}?kind=coordinator`);
    await expect.poll(async () => (await cells('group-partitions')).length, { timeout: 15_000 }).toBe(3);
    const before = await committed(GROUP);
    const hws = await highWatermarks(TOPIC, 3);
    expect(await cells('group-partitions')).toEqual([0, 1, 2].map((p) => [TOPIC, String(p), '–', String(before[p]), String(hws[p]), String(hws[p]! - before[p]!)]));
    expect(await text('card-state')).toBe('StateEmpty');
    // The lag chart gets a point per refresh (5 s).
    await expect.poll(() => page.locator('[data-testid="lag-chart"] path[data-series="orders"]').getAttribute('data-points').then(Number), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    expect(Number(await page.locator('[data-testid="lag-chart"] path[data-series="orders"]').getAttribute('data-last'))).toBe(billingLag);
    await shot('group');

    // A shift-by dry run, then the target changes: the preview is stale and execute is disabled again.
    await page.selectOption('[data-testid="reset-target"]', 'shiftBy');
    await page.fill('[data-testid="reset-number"]', '-4');
    await page.click('[data-testid="reset-preview"]');
    await expect.poll(async () => (await cells('reset-offsets')).map((r) => r.slice(1, 4)), { timeout: 10_000 }).toEqual(
      [0, 1, 2].map((p) => [String(p), String(before[p]), String(Math.max(0, before[p]! - 4))]),
    );
    expect(await page.isEnabled('[data-testid="reset-execute"]')).toBe(true);
    await page.selectOption('[data-testid="reset-target"]', 'earliest');
    expect(await page.isEnabled('[data-testid="reset-execute"]')).toBe(false);
    expect(await committed(GROUP)).toEqual(before);

    await page.click('[data-testid="reset-preview"]');
    await expect.poll(async () => (await cells('reset-offsets')).map((r) => r.slice(1, 4)), { timeout: 10_000 }).toEqual([0, 1, 2].map((p) => [String(p), String(before[p]), '0']));
    expect(await committed(GROUP)).toEqual(before); // a dry run commits nothing
    await shot('group-reset', '[data-testid="reset-panel"]');
    await page.click('[data-testid="reset-execute"]');
    await page.waitForSelector('[data-testid="alert-ok"]');
    expect(await committed(GROUP)).toEqual([0, 0, 0]);
    await expect.poll(async () => (await cells('group-partitions')).map((r) => r[3]), { timeout: 15_000 }).toEqual(['0', '0', '0']);

    // To a time (the browser's local time, to the second): the first offsets at or after it, as
    // ListOffsets by timestamp answers; a dry run first, then executed.
    const atTime = await listOffsets(client, TOPIC, [0, 1, 2].map((partition) => ({ partition, timestamp: Math.floor(secondBatchAt / 1000) * 1000 })));
    const byTime = [0, 1, 2].map((p) => atTime.get(p)!.offset);
    expect(byTime).toEqual([10, 10, 10]); // the 30 records before, 10 per partition
    await page.selectOption('[data-testid="reset-target"]', 'timestamp');
    expect(await page.isEnabled('[data-testid="reset-execute"]')).toBe(false);
    await page.fill('[data-testid="reset-time"]', new Date(secondBatchAt - new Date(secondBatchAt).getTimezoneOffset() * 60_000).toISOString().slice(0, 19));
    await page.click('[data-testid="reset-preview"]');
    await expect.poll(async () => (await cells('reset-offsets')).map((r) => r.slice(1, 4)), { timeout: 10_000 }).toEqual([0, 1, 2].map((p) => [String(p), '0', String(byTime[p])]));
    expect(await committed(GROUP)).toEqual([0, 0, 0]); // the dry run committed nothing
    await page.click('[data-testid="reset-execute"]');
    await expect.poll(() => committed(GROUP), { timeout: 10_000 }).toEqual(byTime);
    await expect.poll(async () => (await cells('group-partitions')).map((r) => r[3]), { timeout: 15_000 }).toEqual(byTime.map(String));
  });

  it('active groups of both kinds: members with their assignments and owned partitions; a reset is refused while they run, then a ZooKeeper group is reset', async () => {
    // A running kafkajs member (coordinator kind) and a running connector consumer (ZooKeeper kind).
    const kafka = new Kafka({ clientId: 'console-watcher', brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 200 } });
    const consumer = kafka.consumer({ groupId: 'watchers', sessionTimeout: 10_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async () => {} });
    const connector = await ZookeeperConsumerConnector.create(
      { 'group.id': 'audit', 'consumer.id': 'live', 'zookeeper.connect': cluster.ensemble.connectString, 'auto.offset.reset': 'smallest', 'auto.commit.enable': 'false' },
      { logger: silentLogger() },
    );
    try {
      await connector.createMessageStreams({ [TOPIC]: 1 });
      await open('#/groups/watchers?kind=coordinator');
      await expect.poll(() => text('card-state'), { timeout: 30_000 }).toBe('StateStable');
      await open('#/groups/watchers?kind=coordinator'); // the reset form lists the topics of the first answer
      await expect.poll(async () => (await cells('members')).map((r) => [r[1], r[4]]), { timeout: 10_000 }).toEqual([['console-watcher', `${TOPIC}: 0, 1, 2`]]);
      const [member] = await cells('members');
      // Every partition is owned by that member.
      await expect.poll(async () => (await cells('group-partitions')).map((r) => r.slice(0, 3)), { timeout: 10_000 }).toEqual([0, 1, 2].map((p) => [TOPIC, String(p), member![0]]));
      // Kafka refuses to reset an active group, a dry run included.
      await page.selectOption('[data-testid="reset-target"]', 'latest');
      await page.click('[data-testid="reset-preview"]');
      await expect.poll(() => text('alert-error'), { timeout: 10_000 }).toBe(`Dry run: GREGOR_ERR_GROUP_NOT_EMPTY Consumer group 'watchers' is active: its state is Stable with 1 member(s). Stop its consumers before resetting offsets.`);
      expect(await page.isEnabled('[data-testid="reset-execute"]')).toBe(false);

      const [consumerId] = await waitFor(async () => {
        const ids = await cluster.kafkaZk.getConsumerIds('audit');
        return ids.length === 1 ? ids : null;
      }, 20_000, 'the connector to register');
      const owners = await waitFor(async () => {
        const o = await Promise.all([0, 1, 2].map((p) => cluster.kafkaZk.getPartitionOwner('audit', TOPIC, p)));
        return o.every((x) => x !== null) ? o : null;
      }, 30_000, 'the connector to own every partition');
      await open('#/groups/audit?kind=zookeeper');
      await expect.poll(async () => (await cells('members')).map((r) => [r[0], r[2], r[4]]), { timeout: 15_000 }).toEqual([[consumerId!, `${TOPIC}: 1`, [0, 1, 2].map((p) => `${TOPIC}-${p}`).join(', ')]]);
      expect((await cells('group-partitions')).map((r) => r[2])).toEqual(owners);
      await shot('group-zookeeper');
    } finally {
      await connector.shutdown();
      await consumer.stop();
      await consumer.disconnect();
    }

    // Once its consumer is gone, the ZooKeeper group resets: previewed, then written under /consumers.
    await waitFor(async () => (await cluster.kafkaZk.getConsumerIds('audit')).length === 0, 20_000, 'the connector to deregister');
    await open('#/groups/audit?kind=zookeeper');
    await page.waitForSelector('[data-testid="reset-panel"]');
    const before = await Promise.all([0, 1, 2].map((p) => cluster.kafkaZk.getConsumerOffset('audit', TOPIC, p)));
    const hws = await highWatermarks(TOPIC, 3);
    await page.selectOption('[data-testid="reset-target"]', 'offset');
    await page.fill('[data-testid="reset-number"]', '3');
    await page.click('[data-testid="reset-preview"]');
    await expect.poll(async () => (await cells('reset-offsets')).map((r) => r.slice(1, 4)), { timeout: 10_000 }).toEqual(
      [0, 1, 2].map((p) => [String(p), before[p] === null ? '–' : String(before[p]), String(Math.min(3, hws[p]!))]),
    );
    expect(await Promise.all([0, 1, 2].map((p) => cluster.kafkaZk.getConsumerOffset('audit', TOPIC, p)))).toEqual(before);
    await page.click('[data-testid="reset-execute"]');
    await page.waitForSelector('[data-testid="alert-ok"]');
    expect((await Promise.all([0, 1, 2].map((p) => cluster.kafkaZk.getConsumerOffset('audit', TOPIC, p)))).map(Number)).toEqual([3, 3, 3]);
    await expect.poll(async () => (await cells('group-partitions')).map((r) => r[3]), { timeout: 15_000 }).toEqual(['3', '3', '3']);
  });

  it('partition operations: a reassignment with its progress, then a preferred-leader election', async () => {
    await open(`#/partitions?topic=${TOPIC}`);
    await expect.poll(async () => (await cells('reassign-editor')).length, { timeout: 15_000 }).toBe(3);
    // Partition 0 moves one replica to the broker that has none (its records are copied there); the
    // leader stays, so the new first replica is the preferred leader but does not lead yet.
    const current = (await cluster.kafkaZk.getTopicAssignment(TOPIC))!.assignment.partitions.get(0)!;
    const leader = (await cluster.partitionState(TOPIC, 0))!.leader;
    const newcomer = [1, 2, 3].find((b) => !current.includes(b))!;
    const target = [newcomer, leader];
    await page.fill('[data-testid="reassign-replicas-0"]', target.join(','));
    await page.click('[data-testid="reassign-start"]');
    await expect.poll(() => text('reassign-count'), { timeout: 60_000 }).toBe('1 of 1 partition(s) done');
    expect((await cluster.kafkaZk.getTopicAssignment(TOPIC))!.assignment.partitions.get(0)).toEqual(target);
    expect([...(await cluster.partitionState(TOPIC, 0))!.isr].sort()).toEqual([...target].sort());
    expect((await cells('reassignments'))[0]!.slice(0, 3)).toEqual([TOPIC, '0', target.join(', ')]);
    expect((await cells('reassignments'))[0]!.slice(5)).toEqual([String(leader), 'done']);
    await expect.poll(async () => (await cells('not-preferred')).map((r) => r.slice(0, 4)), { timeout: 15_000 }).toContainEqual([TOPIC, '0', String(leader), String(newcomer)]);
    // The editor follows: partition 0's ISR now holds the newcomer.
    const isr = (await cluster.partitionState(TOPIC, 0))!.isr.join(', ');
    await expect.poll(async () => (await cells('reassign-editor'))[0]!.slice(0, 3), { timeout: 10_000 }).toEqual(['0', String(leader), isr]);
    await shot('partitions');

    await page.click('[data-testid="elect-all"]');
    await waitFor(async () => (await cluster.partitionState(TOPIC, 0))!.leader === target[0], 30_000, 'the preferred replica to lead');
    await expect.poll(() => text('card-not-preferred'), { timeout: 15_000 }).toBe('Not on preferred leader0');
    expect(await cells('not-preferred')).toEqual([]);
    await expect.poll(async () => (await cells('reassign-editor'))[0]![1], { timeout: 10_000 }).toBe(String(newcomer));
  });

  it('live charts: bytes in/out and messages in per broker, from each broker\'s own counters', async () => {
    await open('#/metrics');
    // Traffic for 8 s at most: records in, and reads that count as bytes out.
    const until = Date.now() + 8000;
    for (let i = 0; i < 40 && Date.now() < until; i++) {
      await produce(9);
      await fetchPartition(client, { topic: TOPIC, partition: i % 3, offset: 0 });
      await new Promise((r) => setTimeout(r, 250));
    }
    const lines = (metric: string) =>
      page.locator(`[data-testid="chart-${metric}"] path[data-series]`).evaluateAll((ps) => ps.map((p) => [p.getAttribute('data-series'), Number(p.getAttribute('data-points')), Number(p.getAttribute('data-last'))] as const));
    const series = await lines('messagesIn');
    expect(series.map((s) => s[0])).toEqual(['broker 1', 'broker 2', 'broker 3']);
    expect(series.every((s) => s[1] >= 2)).toBe(true);
    for (const metric of ['bytesIn', 'bytesOut']) expect((await lines(metric)).map((s) => s[0])).toEqual(['broker 1', 'broker 2', 'broker 3']);
    await shot('live-charts');
    // Once traffic stopped, the totals are each broker's own counters on its /metrics.
    const own = async (id: number, metric: string) => {
      const text = await (await fetch(`${cluster.httpUrl(id)}/metrics`)).text();
      return [...text.matchAll(new RegExp(`^${metric}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce((s, m) => s + Number(m[1]), 0);
    };
    const expected = await Promise.all([1, 2, 3].map((id) => own(id, 'gregor_messages_in_total')));
    expect(expected.reduce((a, b) => a + b, 0)).toBe(produced);
    await expect.poll(async () => Promise.all([1, 2, 3].map((id) => text(`messages-in-${id}`))), { timeout: 10_000 }).toEqual(expected.map((n) => n.toLocaleString('en-US')));
    // Bytes in and out: the exact count (the cell's title) is the broker's counter; every broker took
    // produced bytes and served the fetches of its partitions.
    for (const [metric, testId] of [['gregor_bytes_in_total', 'bytes-in'], ['gregor_bytes_out_total', 'bytes-out']] as const) {
      const bytes = await Promise.all([1, 2, 3].map((id) => own(id, metric)));
      expect(bytes.every((n) => n > 0), `${metric} ${bytes}`).toBe(true);
      await expect
        .poll(async () => Promise.all([1, 2, 3].map((id) => page.locator(`[data-testid="${testId}-${id}"]`).getAttribute('title'))), { timeout: 10_000 })
        .toEqual(bytes.map((n) => `${n.toLocaleString('en-US')} bytes`));
    }
  });

  it('under-replicated partitions are listed and highlighted once a broker is gone', async () => {
    // Not the controller (a new controller would leave the dead broker in the ISRs until the leaders
    // shrink them) and not broker 2, whose admin server serves the console.
    const victim = (await cluster.controllerId()) === 3 ? 1 : 3;
    await cluster.broker(victim).kill();
    const urp = async () => {
      const out: string[] = [];
      for (const topic of [TOPIC, '__consumer_offsets']) {
        const assignment = (await cluster.kafkaZk.getTopicAssignment(topic))!.assignment.partitions;
        for (const [p, replicas] of assignment) {
          const state = await cluster.partitionState(topic, p);
          if (state && state.isr.length < replicas.length) out.push(`${topic}-${p}`);
        }
      }
      return out.sort();
    };
    const expected = await waitFor(async () => {
      const u = await urp();
      return u.length > 0 && u.length === (await expectedReplicasOf(victim)) ? u : null;
    }, 40_000, `the ISRs without broker ${victim}`);
    await open('#/overview');
    await expect.poll(async () => (await cells('under-replicated')).map((r) => `${r[0]}-${r[1]}`).sort(), { timeout: 20_000 }).toEqual(expected);
    expect(await page.locator('[data-testid="under-replicated"] tbody tr.urp').count()).toBe(expected.length);
    expect(await text('card-urp')).toBe(`Under-replicated${expected.length}`);
    expect((await cells('brokers')).map((r) => r[0])).toEqual(['1', '2', '3'].filter((id) => id !== String(victim)));
    await shot('overview-urp');
    await open(`#/topics/${TOPIC}`);
    const ofTopic = expected.filter((x) => x.startsWith(`${TOPIC}-`)).map((x) => x.slice(TOPIC.length + 1));
    await expect.poll(() => page.locator('[data-testid="partitions"] tbody tr.urp').evaluateAll((trs) => trs.map((tr) => tr.querySelector('td')!.textContent)), { timeout: 15_000 }).toEqual(ofTopic);
  });

  it('raised no page error and no Content-Security-Policy violation', () => {
    expect(browser.problems.filter((p) => !p.includes('Failed to load resource'))).toEqual([]);
  });
}, 300_000);
