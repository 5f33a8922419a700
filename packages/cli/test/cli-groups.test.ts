import { Kafka, logLevel, type Admin as KafkaAdmin, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KcatMember } from '../../../test/groups/kcat-member.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../test/support/in-process-cluster.js';
import { ensureBuilt, gregor, GregorProcess, ok, tableRows } from './gregor-process.js';

// `gregor groups` and `gregor consume --group` against the three kinds of groups a gregor cluster has:
// kcat -G (librdkafka) and kafkajs groups at the group coordinator, and the ZooKeeper consumer
// connector's. Real ZooKeeper, two real brokers, the compiled CLI as a process; offsets are checked
// with kafkajs's OffsetFetch (admin.fetchOffsets) and in ZooKeeper.
const TOPIC = 'orders';
const PROPS = {
  'offsets.topic.num.partitions': '3',
  'offsets.topic.replication.factor': '2',
  'default.replication.factor': '2',
  'group.initial.rebalance.delay.ms': '200',
};

describe('gregor groups against kcat -G, kafkajs and ZooKeeper connector groups', () => {
  let zk: TestZooKeeper;
  const brokers: TestBroker[] = [];
  let kafka: Kafka;
  let admin: KafkaAdmin;
  const consumers: Consumer[] = [];
  const processes: GregorProcess[] = [];
  const kcats: KcatMember[] = [];
  let b: string[] = [];
  let z: string[] = [];
  /** High watermarks after batch A (records before `cut`), and at the end. */
  let afterA: number[] = [];
  let cut = 0;

  beforeAll(async () => {
    ensureBuilt();
    zk = await startZooKeeper();
    brokers.push(await startBroker(zk, 1, PROPS), await startBroker(zk, 2, PROPS));
    const bootstrap = brokers.map((x) => x.bootstrap).join(',');
    b = ['--bootstrap-server', bootstrap];
    z = ['--zookeeper', zk.connectString];
    kafka = new Kafka({ clientId: 'cli-groups-test', brokers: brokers.map((x) => x.bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled(consumers.map((c) => c.disconnect()));
    await Promise.allSettled(kcats.map((k) => k.kill()));
    await Promise.allSettled(processes.map((p) => p.stop('SIGKILL')));
    await admin?.disconnect().catch(() => undefined);
    for (const x of brokers) await x.stop();
    await zk?.stop();
    for (const x of brokers) removeDir(x.logDir);
  }, 60_000);

  async function produce(from: number, n: number): Promise<void> {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: n }, (_, i) => ({ key: `k${(from + i) % 13}`, value: `v${from + i}` })) });
    await producer.disconnect();
  }
  const highWatermarks = async (): Promise<number[]> => (await admin.fetchTopicOffsets(TOPIC)).sort((x, y) => x.partition - y.partition).map((o) => Number(o.high));
  const committed = async (groupId: string): Promise<number[]> => {
    const [t] = await admin.fetchOffsets({ groupId, topics: [TOPIC] });
    return t!.partitions.sort((x, y) => x.partition - y.partition).map((p) => Number(p.offset));
  };
  const zkCommitted = async (group: string): Promise<(number | null)[]> =>
    Promise.all([0, 1, 2].map(async (p) => {
      const o = await brokers[0]!.server.zk.getConsumerOffset(group, TOPIC, p);
      return o === null ? null : Number(o);
    }));

  it('topics --create with kafka-topics flags; a misspelled flag gets a hint and exit 2', async () => {
    const created = await ok(['topics', '--create', '--topic', TOPIC, '--partitions', '3', '--replication-factor', '2', ...b]);
    expect(created.stdout).toContain(`Created topic ${TOPIC}.`);
    const typo = await gregor(['topics', '--create', '--topic', 'x', '--partitons', '3', ...b]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown option --partitons (did you mean --partitions?)');
    expect((await ok(['topics', '--list', ...b])).stdout.split('\n')).toContain(TOPIC);
    // Batch A, a time between, batch B: --to-datetime lands exactly on B's first records.
    await produce(0, 150);
    afterA = await highWatermarks();
    await new Promise((r) => setTimeout(r, 100));
    cut = Date.now();
    await new Promise((r) => setTimeout(r, 100));
    await produce(150, 150);
    expect((await highWatermarks()).reduce((x, y) => x + y)).toBe(300);
  }, 60_000);

  it('groups of every kind read the topic: kcat -G, kafkajs, the ZooKeeper connector, and gregor consume --group (coordinator)', async () => {
    const kcat = new KcatMember(b[1]!, 'g-kcat', TOPIC);
    kcats.push(kcat);
    await waitFor(() => kcat.lines.length >= 300, 30_000, 'kcat read 300');
    expect(await kcat.stop()).toBe(0);
    await waitFor(async () => (await committed('g-kcat')).join() === (await highWatermarks()).join(), 15_000, 'kcat committed everything');

    const kjs = kafka.consumer({ groupId: 'g-kjs', sessionTimeout: 6000, heartbeatInterval: 500 });
    consumers.push(kjs);
    let read = 0;
    await kjs.connect();
    await kjs.subscribe({ topic: TOPIC, fromBeginning: true });
    await kjs.run({ autoCommitInterval: 200, eachMessage: async () => void read++ });
    await waitFor(async () => read >= 300 && (await committed('g-kjs')).reduce((x, y) => x + y) === 300, 30_000, 'kafkajs read and committed 300');

    const connector = await ok(['consume', '--group', 'g-zk', ...z, '--topic', TOPIC, '--from-beginning', '--timeout-ms', '3000'], { timeoutMs: 60_000 });
    expect(connector.stdout.trim().split('\n')).toHaveLength(300);
    expect(await zkCommitted('g-zk')).toEqual(await highWatermarks());

    // The coordinator kind of consume --group: reads from the beginning, commits, and a second run finds nothing new.
    const first = await ok(['consume', '--group', 'g-cli', '--topic', TOPIC, '--from-beginning', '--max', '300', ...b]);
    expect(new Set(first.stdout.trim().split('\n')).size).toBe(300);
    expect(first.stderr).toContain('Processed a total of 300 messages');
    expect(await committed('g-cli')).toEqual(await highWatermarks());
    const again = await ok(['consume', '--group', 'g-cli', '--topic', TOPIC, '--timeout-ms', '2500', ...b]);
    expect(again.stdout).toBe('');

    await produce(300, 30); // every group now lags by these
  }, 120_000);

  it('list shows the coordinator groups (and their states), --zookeeper the connector groups', async () => {
    const list = await ok(['groups', '--list', ...b]);
    const listed = list.stdout.trim().split('\n');
    expect(listed).toEqual(expect.arrayContaining(['g-kcat', 'g-kjs', 'g-cli']));
    expect(listed).not.toContain('g-zk');
    // The connector's groups are not on a coordinator: a hint on stderr says where they are; stdout is only names.
    expect(list.stderr.trim()).toBe('(coordinator groups; add --zookeeper <connect> for ZooKeeper consumer connector groups)');
    expect(list.stdout).not.toContain('--zookeeper');
    const json = await ok(['groups', '--list', '--format', 'json', ...b]);
    expect(JSON.parse(json.stdout)).toEqual(expect.arrayContaining(['g-kcat', 'g-kjs', 'g-cli']));
    expect(json.stderr).toContain('add --zookeeper <connect>');
    const states = (await ok(['groups', '--list', '--state', ...b])).stdout;
    expect(tableRows(states, 'g-kjs')).toEqual([['g-kjs', 'Stable']]);
    expect(tableRows(states, 'g-kcat')).toEqual([['g-kcat', 'Empty']]);
    const filtered = (await ok(['groups', '--list', '--state', 'empty', ...b])).stdout;
    expect(filtered).toMatch(/^GROUP\s+STATE/);
    expect(tableRows(filtered, 'g-kcat')).toEqual([['g-kcat', 'Empty']]);
    expect(tableRows(filtered, 'g-kjs')).toEqual([]);
    const zkList = await ok(['groups', 'list', ...z]);
    expect(zkList.stdout.trim().split('\n')).toEqual(['g-zk']);
    expect(zkList.stderr).not.toContain('add --zookeeper');
  }, 60_000);

  it("describe: Kafka's columns, committed offsets, log end offsets and lag; members and state", async () => {
    const ends = await highWatermarks();
    const header = /GROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+CONSUMER-ID\s+HOST\s+CLIENT-ID/;
    const kcat = await ok(['groups', '--describe', '--group', 'g-kcat', ...b]);
    expect(kcat.stdout).toMatch(header);
    expect(kcat.stderr).toContain("Consumer group 'g-kcat' has no active members.");
    const kcatCommitted = await committed('g-kcat');
    expect(tableRows(kcat.stdout, 'g-kcat').sort((x, y) => Number(x[2]) - Number(y[2]))).toEqual(
      [0, 1, 2].map((p) => ['g-kcat', TOPIC, String(p), String(kcatCommitted[p]), String(ends[p]), String(ends[p]! - kcatCommitted[p]!), '-', '-', '-']),
    );
    expect(kcatCommitted.reduce((x, y) => x + y)).toBe(300);

    // An active kafkajs member: its id, host and client id own the partitions; its lag goes to 0.
    await waitFor(async () => (await committed('g-kjs')).join() === ends.join(), 15_000, 'kafkajs caught up');
    const kjs = tableRows((await ok(['groups', 'describe', 'g-kjs', ...b])).stdout, 'g-kjs');
    expect(kjs).toHaveLength(3);
    for (const row of kjs) {
      expect(row[5]).toBe('0');
      expect(row[6]).toMatch(/^cli-groups-test-/);
      expect(row[7]).toBe('/127.0.0.1');
      expect(row[8]).toBe('cli-groups-test');
    }
    const members = await ok(['groups', '--describe', '--group', 'g-kjs', '--members', '--verbose', ...b]);
    expect(members.stdout).toMatch(/GROUP\s+CONSUMER-ID\s+HOST\s+CLIENT-ID\s+#PARTITIONS\s+ASSIGNMENT/);
    expect(tableRows(members.stdout, 'g-kjs')[0]!.slice(3)).toEqual(['cli-groups-test', '3', `${TOPIC}(0,1,2)`]);
    const state = await ok(['groups', '--describe', '--group', 'g-kjs', '--state', ...b]);
    expect(state.stdout).toMatch(/GROUP\s+COORDINATOR \(ID\)\s+ASSIGNMENT-STRATEGY\s+STATE\s+#MEMBERS/);
    expect(tableRows(state.stdout, 'g-kjs')[0]).toEqual(['g-kjs', expect.stringMatching(/^127\.0\.0\.1:\d+$/), expect.stringMatching(/^\([12]\)$/), 'RoundRobinAssigner', 'Stable', '1']);

    // The connector group, through ZooKeeper: same columns, offsets from /consumers/g-zk/offsets.
    const zkRows = tableRows((await ok(['groups', 'describe', 'g-zk', ...z])).stdout, 'g-zk').sort((x, y) => Number(x[2]) - Number(y[2]));
    const zkOffsets = await zkCommitted('g-zk');
    expect(zkRows.map((r) => r.slice(0, 6))).toEqual([0, 1, 2].map((p) => ['g-zk', TOPIC, String(p), String(zkOffsets[p]), String(ends[p]), String(ends[p]! - zkOffsets[p]!)]));
    const zkJson = JSON.parse((await ok(['groups', 'describe', 'g-zk', '--format', 'json', ...z])).stdout) as { members: unknown[]; partitions: { lag: number }[] };
    expect(zkJson.partitions.reduce((n, p) => n + p.lag, 0)).toBe(30);

    const missing = await gregor(['groups', 'describe', 'nobody', ...b]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Consumer group 'nobody' does not exist.");
  }, 60_000);

  it('a reset of an active group is refused, as Kafka does, and changes nothing', async () => {
    const before = await committed('g-kjs');
    const refused = await gregor(['groups', '--reset-offsets', '--group', 'g-kjs', '--all-topics', '--to-earliest', '--execute', ...b]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Assignments can only be reset if the group 'g-kjs' is inactive, but the current state is Stable.");
    expect(await committed('g-kjs')).toEqual(before);
    const deleteRefused = await gregor(['groups', 'delete', 'g-kjs', ...b]);
    expect(deleteRefused.code).toBe(1);
    expect(deleteRefused.stderr).toContain("Group 'g-kjs' could not be deleted due to: The group is not empty.");

    // A connector member registered in ZooKeeper makes its group active too.
    const member = new GregorProcess(['consume', '--group', 'g-zk', ...z, '--topic', TOPIC]);
    processes.push(member);
    await waitFor(async () => (await brokers[0]!.server.zk.getConsumerIds('g-zk')).length === 1, 20_000, 'connector member registered');
    const zkBefore = await zkCommitted('g-zk');
    const zkRefused = await gregor(['groups', '--reset-offsets', '--group', 'g-zk', '--topic', TOPIC, '--to-earliest', '--execute', ...z]);
    expect(zkRefused.code).toBe(1);
    expect(zkRefused.stderr).toContain("Assignments can only be reset if the group 'g-zk' is inactive");
    expect(await zkCommitted('g-zk')).toEqual(zkBefore);
    expect(await member.stop()).toBe(0);
    await waitFor(async () => (await brokers[0]!.server.zk.getConsumerIds('g-zk')).length === 0, 20_000, 'connector member gone');

    // Once the kafkajs member left, its group resets.
    await consumers[0]!.disconnect();
    await ok(['groups', '--reset-offsets', '--group', 'g-kjs', '--all-topics', '--to-earliest', '--execute', ...b]);
    expect(await committed('g-kjs')).toEqual([0, 0, 0]);
  }, 90_000);

  /** Each scenario: the plan it prints (per partition) given the offsets before. */
  const scenarios: { flags: string[]; expected: (ends: number[], before: number[]) => number[] }[] = [
    { flags: ['--to-earliest'], expected: () => [0, 0, 0] },
    { flags: ['--to-latest'], expected: (ends) => ends },
    { flags: ['--to-offset', '7'], expected: (ends) => ends.map((e) => Math.min(7, e)) },
    { flags: ['--shift-by', '-3'], expected: (_, before) => before.map((o) => Math.max(0, o - 3)) },
    { flags: ['--to-datetime', '<cut>'], expected: () => afterA },
  ];
  const flagsOf = (flags: string[]): string[] => flags.map((f) => (f === '<cut>' ? new Date(cut).toISOString().slice(0, 23) : f));

  it.each([
    ['the kcat -G group (coordinator)', 'g-kcat', 'coordinator'],
    ['the ZooKeeper connector group', 'g-zk', 'zookeeper'],
  ] as const)('reset-offsets of %s: each --to-* plans without --execute (offsets unchanged), changes them with it', async (_, group, kind) => {
    const where = kind === 'zookeeper' ? z : b;
    const read = async (): Promise<number[]> => (kind === 'zookeeper' ? (await zkCommitted(group)).map((o) => o ?? -1) : committed(group));
    const scope = kind === 'zookeeper' ? ['--topic', TOPIC] : ['--all-topics'];
    const ends = await highWatermarks();
    for (const s of scenarios) {
      const before = await read();
      const expected = s.expected(ends, before);
      const planned = await ok(['groups', '--reset-offsets', '--group', group, ...scope, ...flagsOf(s.flags), ...where]);
      expect(planned.stdout, s.flags.join(' ')).toMatch(/GROUP\s+TOPIC\s+PARTITION\s+NEW-OFFSET/);
      expect(planned.stderr).toContain('--execute option is missing');
      const plan = tableRows(planned.stdout, group).sort((x, y) => Number(x[2]) - Number(y[2]));
      expect(plan, s.flags.join(' ')).toEqual([0, 1, 2].map((p) => [group, TOPIC, String(p), String(expected[p])]));
      expect(await read(), `${s.flags.join(' ')} without --execute`).toEqual(before);
      const dry = await ok(['groups', '--reset-offsets', '--group', group, ...scope, ...flagsOf(s.flags), '--dry-run', ...where]);
      expect(dry.stderr).not.toContain('--execute option is missing');
      expect(await read()).toEqual(before);
      await ok(['groups', '--reset-offsets', '--group', group, ...scope, ...flagsOf(s.flags), '--execute', ...where]);
      expect(await read(), `${s.flags.join(' ')} --execute`).toEqual(expected);
    }
    // A reset group is read from there: the kcat group re-reads from batch B's first record.
    if (kind === 'coordinator') {
      const rerun = await ok(['consume', '--group', group, '--topic', TOPIC, '--timeout-ms', '3000', ...b]);
      expect(rerun.stdout.trim().split('\n')).toHaveLength(330 - afterA.reduce((x, y) => x + y));
    }
  }, 120_000);

  it('delete removes an empty group of either kind', async () => {
    const deleted = await ok(['groups', '--delete', '--group', 'g-cli', ...b]);
    expect(deleted.stdout).toContain("Deletion of requested consumer groups ('g-cli') was successful.");
    expect((await ok(['groups', 'list', ...b])).stdout.split('\n')).not.toContain('g-cli');
    expect((await gregor(['groups', 'describe', 'g-cli', ...b])).code).toBe(1);
    expect((await ok(['groups', 'delete', 'g-zk', ...z])).stdout).toContain("Deleted all consumer group information for group 'g-zk' in zookeeper.");
    expect((await ok(['groups', 'list', ...z])).stdout.trim()).toBe('');
  }, 60_000);
});
