import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { Admin, KafkaClient } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { BrokerProcess } from '../support/broker-process.js';
import { startZooKeeper, waitFor, type TestZooKeeper } from '../support/in-process-cluster.js';
import { kcat } from '../support/kcat.js';

/**
 * The two classic KIP-101 scenarios, with broker processes: a returning replica never keeps divergent
 * records and never loses committed ones; and unclean leader election, off by default, can be enabled per topic.
 */
describe('leader epochs and unclean election (processes)', () => {
  let zk: TestZooKeeper;
  let zkClient: ZkClient;
  let kzk: KafkaZkClient;
  let dir: string;
  const brokers = new Map<number, BrokerProcess>();
  const props = {
    'replica.lag.time.max.ms': '30000',
    'replica.fetch.wait.max.ms': '100',
    'replica.high.watermark.checkpoint.interval.ms': '600000',
    'auto.leader.rebalance.enable': 'false',
  };

  beforeAll(async () => {
    zk = await startZooKeeper();
    dir = mkdtempSync(join(tmpdir(), 'gregor-epochs-'));
    const ports = await freePorts(3);
    for (const id of [3, 1, 2]) {
      const b = new BrokerProcess({ brokerId: id, port: ports[id - 1]!, dir: join(dir, `b${id}`), zookeeperConnect: zk.connectString, props });
      brokers.set(id, b);
      await b.start(); // broker 3 first: it stays controller, out of the way of the scenarios
    }
    zkClient = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 10_000, logger: silentLogger() });
    kzk = new KafkaZkClient(zkClient);
  }, 120_000);

  afterAll(async () => {
    await zkClient?.close();
    for (const b of brokers.values()) {
      if (!b.isRunning()) continue; // a failed scenario may leave one stopped
      b.resume();
      await b.kill();
    }
    await zk?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const b = (id: number) => brokers.get(id)!;
  const bootstrap = () => [...brokers.values()].filter((x) => x.isRunning()).map((x) => x.bootstrap).join(',');
  const state = async (topic: string) => (await kzk.getPartitionState(topic, 0))!.state;
  async function createTopic(name: string, replicas: number[], configs: Record<string, string> = {}) {
    const client = new KafkaClient({ brokers: bootstrap() });
    const [r] = await new Admin(client).createTopics([{ name, numPartitions: -1, replicationFactor: -1, replicaAssignment: { 0: replicas }, configs }]);
    await client.close();
    expect(r!.errorCode).toBe(0);
    await waitFor(async () => (await state(name)).isr.length === replicas.length, 20_000, `${name} ISR full`);
  }
  const produce = async (topic: string, values: string[], acks: string) => {
    const r = await kcat(['-b', bootstrap(), '-P', '-t', topic, '-p', '0', '-X', `acks=${acks}`], values.join('\n') + '\n');
    expect(r.code, r.stderr).toBe(0);
  };
  const consume = async (topic: string) => {
    const r = await kcat(['-b', bootstrap(), '-C', '-t', topic, '-p', '0', '-e', '-q']);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.toString().split('\n').filter((x) => x !== '');
  };
  const segment = (id: number, topic: string) => {
    const d = join(b(id).logDir, `${topic}-0`);
    return readFileSync(join(d, readdirSync(d).find((f) => f.endsWith('.log'))!));
  };

  it('divergence: the old leader drops the records the new leader never had (KIP-101 scenario 2)', async () => {
    await createTopic('diverge', [1, 2]);
    await produce('diverge', ['m0'], 'all');
    await waitFor(async () => (await consume('diverge')).length === 1, 10_000, 'm0 committed');
    b(2).pause(); // the follower misses m1
    // A fetch of broker 2 already parked at the leader could still carry m1 into its socket buffer:
    // let it expire (replica.fetch.wait.max.ms=100) before writing m1.
    await new Promise((r) => setTimeout(r, 1000));
    await produce('diverge', ['m1-only-on-1'], '1');
    await b(1).kill();
    b(2).resume(); // within the session timeout: still in the ISR, so it becomes leader at a new epoch
    await waitFor(async () => (await state('diverge')).leader === 2, 20_000, 'broker 2 leads');
    await produce('diverge', ['m2-from-2'], '1');
    await b(1).start();
    await waitFor(async () => (await state('diverge')).isr.includes(1), 30_000, 'broker 1 back in the ISR');
    expect(await consume('diverge')).toEqual(['m0', 'm2-from-2']);
    // Both logs hold the same bytes: the divergent m1 is gone from broker 1, not kept at offset 1.
    await b(1).stop();
    expect(segment(1, 'diverge').equals(segment(2, 'diverge'))).toBe(true);
    expect(readFileSync(b(1).logFile, 'utf8')).toMatch(/truncating follower log/);
    await b(1).start();
  }, 120_000);

  it('no loss: a follower restarted with a stale high-watermark checkpoint keeps committed records (KIP-101 scenario 1)', async () => {
    await createTopic('keep', [2, 1]);
    const values = Array.from({ length: 100 }, (_, i) => `k${i}`);
    await produce('keep', values, 'all');
    const logBefore = readFileSync(b(1).logFile, 'utf8').length;
    const before = (await kzk.getPartitionState('keep', 0))!.zkVersion;
    await b(1).kill(); // its replication-offset-checkpoint is older than its log (interval 10 min)
    await b(1).start();
    // The ISR still lists broker 1 until the controller handles its restart (it removes the replica from the ISR,
    // as Kafka's onBrokerFailure does); broker 1 is back only when the leader has added it again after that.
    await waitFor(async () => {
      const s = (await kzk.getPartitionState('keep', 0))!;
      return s.zkVersion > before && s.state.isr.includes(1);
    }, 30_000, 'broker 1 back in the ISR after its restart was handled');
    const newLog = readFileSync(b(1).logFile, 'utf8').slice(logBefore);
    expect(newLog).not.toMatch(/"keep-0".*truncating follower log|truncating follower log.*"keep-0"/);
    await b(2).kill(); // broker 1 must now lead with everything that was acknowledged
    await waitFor(async () => (await state('keep')).leader === 1, 20_000, 'broker 1 leads');
    expect(await consume('keep')).toEqual(values);
    await b(2).start();
  }, 120_000);

  it('unclean leader election: off by default the partition stays offline; enabled per topic a live out-of-sync replica leads', async () => {
    await createTopic('clean', [1, 2]);
    await createTopic('dirty', [1, 2], { 'unclean.leader.election.enable': 'true', 'min.insync.replicas': '1' });
    // Make broker 2 an out-of-sync replica of both: stop it, write, kill the leader, bring 2 back.
    await b(2).stop();
    await waitFor(async () => (await state('clean')).isr.length === 1 && (await state('dirty')).isr.length === 1, 20_000, 'ISRs of one');
    await produce('clean', ['c-only-on-1'], '1');
    await produce('dirty', ['d-only-on-1'], '1');
    await b(1).kill();
    await waitFor(async () => (await state('clean')).leader === -1, 20_000, 'clean offline');
    await b(2).start();
    await waitFor(async () => (await state('dirty')).leader === 2, 20_000, 'dirty led by the out-of-sync replica');
    await new Promise((r) => setTimeout(r, 2000));
    expect((await state('clean')).leader).toBe(-1); // still offline: nobody from the ISR is alive
    await b(1).start();
    await waitFor(async () => (await state('clean')).leader === 1, 20_000, 'clean back with its ISR member');
    expect(await consume('clean')).toEqual(['c-only-on-1']);
    // The unclean election lost the record only broker 1 had; broker 1 truncated to follow broker 2.
    await waitFor(async () => (await state('dirty')).isr.includes(1), 30_000, 'broker 1 follows again');
    expect(await consume('dirty')).toEqual([]);
  }, 150_000);
});
