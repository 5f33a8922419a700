import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { ProcessCluster } from '../support/process-cluster.js';
import { waitFor } from '../support/in-process-cluster.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliMember, gregor, Member, owners, startConsumerService, type Seen } from './group-members.js';

/**
 * The ZooKeeper consumer connector against a 3-node ZooKeeper ensemble and 3 broker processes: group
 * balance, a member joining and one killed -9, partitions added, a leader killed, an expired session,
 * and back-pressure from a slow consumer. One cluster for the whole file; phases run in order.
 */
const TOPIC = 'events';
const GROUP = 'g1';
const SESSION_MS = 4000;

describe('ZooKeeper consumer connector (3 ZooKeeper nodes, 3 brokers)', () => {
  let cluster: ProcessCluster;
  let client: KafkaClient;
  let producer: Producer;
  const seen: Seen = new Map();
  const produced: string[] = [];
  const members: Member[] = [];
  let next = 0;

  const props = (id: string) => ({
    'group.id': GROUP,
    'consumer.id': id,
    'zookeeper.connect': cluster.ensemble.connectString,
    'zookeeper.session.timeout.ms': String(SESSION_MS),
    'auto.offset.reset': 'smallest',
    'auto.commit.interval.ms': '500',
    'rebalance.backoff.ms': '500',
    'rebalance.max.retries': '10',
  });

  async function produce(count: number, partition?: number): Promise<void> {
    const values = Array.from({ length: count }, () => `m-${next++}`);
    for (let i = 0; i < values.length; i += 500) {
      await producer.send({ topic: TOPIC, messages: values.slice(i, i + 500).map((v) => ({ key: v, value: v, partition })) });
    }
    produced.push(...values);
  }

  /** What child-process members printed. */
  const cliSeen: Seen = new Map();
  const read = (v: string) => seen.has(v) || cliSeen.has(v);

  async function allRead(timeoutMs = 30_000): Promise<void> {
    try {
      await waitFor(() => produced.every(read), timeoutMs, 'every produced message read');
    } catch (error) {
      throw new Error(`${(error as Error).message}: ${produced.filter((v) => !read(v)).length} of ${produced.length} missing`);
    }
  }

  const cliArgs = (id: string) => [
    '--group', GROUP, '--topic', TOPIC, '--zookeeper', cluster.ensemble.connectString, '--from-beginning',
    ...Object.entries({ ...props(id), 'group.id': undefined, 'zookeeper.connect': undefined, 'auto.offset.reset': undefined })
      .filter(([, v]) => v !== undefined)
      .flatMap(([k, v]) => ['--consumer-property', `${k}=${v}`]),
  ];

  /** Every partition owned, by exactly the owners the live members report. */
  async function balanced(partitions: number, live: Member[], timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        const zkOwners = await owners(cluster.kafkaZk, GROUP, TOPIC, partitions);
        if (zkOwners.some((o) => o === null)) return false;
        const reported = live.flatMap((m) => m.owned());
        return reported.length === partitions && new Set(reported).size === partitions;
      },
      timeoutMs,
      'every partition owned exactly once',
    );
  }

  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: 3,
      zookeepers: 3,
      brokerProps: { 'zookeeper.session.timeout.ms': '4000', 'replica.lag.time.max.ms': '3000', 'auto.leader.rebalance.enable': 'false' },
    });
    client = new KafkaClient({ brokers: cluster.bootstrap(), metadataMaxAgeMs: 1000 });
    producer = new Producer(client, { acks: -1, retryBackoffMs: 100, retryBackoffMaxMs: 500, deliveryTimeoutMs: 30_000 });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: 12, replicationFactor: 3 }]);
    expect(r!.errorCode).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(members.map((m) => m.stop().catch(() => {})));
    await client?.close();
    await cluster?.stop();
  });

  it('a group of 3 owns each of 12 partitions exactly once and reads every message', async () => {
    for (const id of ['c1', 'c2', 'c3']) members.push(await Member.start(props(id), TOPIC, seen));
    await balanced(12, members);
    expect(members.map((m) => m.owned().length)).toEqual([4, 4, 4]);
    expect((await cluster.kafkaZk.getConsumerIds(GROUP)).sort()).toEqual(['g1_c1', 'g1_c2', 'g1_c3']);
    await produce(3000);
    await allRead();
    // Offsets reach ZooKeeper (auto-commit every 500 ms) as the next offset to consume.
    await waitFor(async () => {
      let total = 0;
      for (let p = 0; p < 12; p++) total += Number((await cluster.kafkaZk.getConsumerOffset(GROUP, TOPIC, p)) ?? 0);
      return total === 3000;
    }, 10_000, 'committed offsets add up to the messages produced');
  }, 90_000);

  it('a 4th member joins, then is killed -9: after the session timeout every partition is owned again and nothing is skipped', async () => {
    const c4 = new CliMember(cliArgs('c4'), cliSeen);
    await waitFor(async () => (await owners(cluster.kafkaZk, GROUP, TOPIC, 12)).filter((o) => o?.startsWith('g1_c4-')).length === 3, 30_000, 'c4 owns 3 partitions');
    await balanced(12 - 3, members);
    const before = cliSeen.size;
    await produce(2000);
    await waitFor(() => cliSeen.size > before, 20_000, 'c4 reads');
    c4.signal('SIGKILL');
    const killedAt = Date.now();
    await c4.exited;
    await produce(2000);
    await balanced(12, members, 30_000);
    const reownedMs = Date.now() - killedAt;
    console.log(`member killed -9: every partition owned again after ${reownedMs} ms (session timeout ${SESSION_MS} ms)`);
    expect(reownedMs).toBeLessThan(SESSION_MS + 10_000);
    await allRead();
  }, 90_000);

  it('adding partitions triggers a rebalance that picks them up', async () => {
    const [r] = await new Admin(client).createPartitions([{ topic: TOPIC, count: 16 }]);
    expect(r!.errorCode).toBe(0);
    await balanced(16, members, 30_000);
    await client.refreshMetadata([TOPIC]);
    for (let p = 12; p < 16; p++) await produce(100, p);
    await allRead();
  }, 60_000);

  it("a partition's leader killed: the leader finder follows it without a rebalance", async () => {
    const owner = members[0]!;
    const [topic, partition] = [TOPIC, Number(owner.owned()[0]!.split('-').pop())];
    const leader = (await cluster.partitionState(topic, partition))!.leader;
    await waitFor(() => owner.connector.fetcherManager.fetchingFrom(topic, partition) === leader, 10_000, 'fetching from the leader');
    const rebalances = members.map((m) => m.connector.stats().rebalances);
    await cluster.broker(leader).kill();
    await produce(1000);
    await waitFor(async () => {
      const now = (await cluster.partitionState(topic, partition))!.leader;
      return now !== leader && now >= 0 && owner.connector.fetcherManager.fetchingFrom(topic, partition) === now;
    }, 30_000, 'fetching from the new leader');
    await allRead(40_000);
    expect(members.map((m) => m.connector.stats().rebalances)).toEqual(rebalances);
    await cluster.broker(leader).start();
  }, 90_000);

  it('a member whose session expired (paused past the timeout) re-registers and resumes', async () => {
    const c5 = new CliMember(cliArgs('c5'), cliSeen);
    const ownedByC5 = async () => (await owners(cluster.kafkaZk, GROUP, TOPIC, 16)).filter((o) => o?.startsWith('g1_c5-')).length;
    await waitFor(async () => (await ownedByC5()) === 4, 30_000, 'c5 owns 4 partitions');
    const firstOwner = (await cluster.kafkaZk.zk.exists('/consumers/g1/ids/g1_c5'))!.ephemeralOwner;
    c5.signal('SIGSTOP');
    await balanced(16, members, SESSION_MS + 20_000); // the others take over once the session expires
    c5.signal('SIGCONT');
    await waitFor(async () => (await ownedByC5()) === 4, 40_000, 'c5 owns partitions again');
    const secondOwner = (await cluster.kafkaZk.zk.exists('/consumers/g1/ids/g1_c5'))!.ephemeralOwner;
    expect(secondOwner).not.toBe(firstOwner); // registered again, from a new session
    const before = cliSeen.size;
    await produce(1000);
    await waitFor(() => cliSeen.size > before, 20_000, 'c5 reads again');
    await allRead();
    c5.signal('SIGTERM');
    expect(await c5.exited).toBe(0);
    expect(c5.stderr).toMatch(/Processed a total of \d+ messages/);
    await balanced(16, members, 20_000);
  }, 120_000);

  it('consumer-service reports its partitions and counts on HTTP; groups list/describe show members, owners, offsets and lag; SIGTERM is clean', async () => {
    const file = join(cluster.dir, 'consumer-service.properties');
    writeFileSync(file, [`group.id=g2`, `zookeeper.connect=${cluster.ensemble.connectString}`, 'auto.offset.reset=smallest', 'auto.commit.interval.ms=500', `topics=${TOPIC}:2`, 'http.port=0'].join('\n'));
    const service = await startConsumerService(file);
    const get = async (path: string) => (await fetch(`${service.url}${path}`)).json() as Promise<Record<string, unknown>>;
    expect(await get('/healthz')).toMatchObject({ status: 'ok' });
    await waitFor(async () => (await get('/v1/consumer')).consumed === produced.length, 30_000, 'the service read every message');
    const partitions = (await get('/v1/partitions')).partitions as { partition: number; consumedOffset: number; lag: number; owner: string }[];
    expect(partitions.map((p) => p.partition).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(new Set(partitions.map((p) => p.owner)).size).toBe(2); // two streams
    await waitFor(async () => ((await get('/v1/partitions')).partitions as { lag: number }[]).every((p) => p.lag === 0), 10_000, 'no lag');

    const zkArgs = ['--zookeeper', cluster.ensemble.connectString];
    const list = await gregor(['groups', 'list', ...zkArgs]);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')).toEqual(expect.arrayContaining(['g1', 'g2']));
    await waitFor(async () => {
      const d = await gregor(['groups', 'describe', 'g2', '--format', 'json', ...zkArgs]);
      const g = JSON.parse(d.stdout) as { members: unknown[]; partitions: { committedOffset: number; logEndOffset: number; lag: number; owner: string }[] };
      return g.members.length === 1 && g.partitions.length === 16 && g.partitions.every((p) => p.lag === 0 && p.owner !== null && p.committedOffset === p.logEndOffset);
    }, 15_000, 'groups describe g2: committed = log end on every partition');
    const text = await gregor(['groups', 'describe', 'g1', ...zkArgs]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/GROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+CONSUMER-ID\s+HOST\s+CLIENT-ID/);
    expect(text.stdout.split('\n').filter((l) => l.startsWith(`g1 `) && l.split(/\s+/)[1] === TOPIC)).toHaveLength(16);
    const members = await gregor(['groups', 'describe', 'g1', '--members', ...zkArgs]);
    expect(members.stdout.split('\n').filter((l) => l.startsWith('g1 '))).toHaveLength(3);
    expect((await gregor(['groups', 'describe', 'nope', ...zkArgs])).code).toBe(1);

    service.proc.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(await owners(cluster.kafkaZk, 'g2', TOPIC, 16)).toEqual(Array(16).fill(null));
  }, 90_000);
});
