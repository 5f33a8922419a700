import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { kcat } from '../support/kcat.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { VerifyingProducer } from '../support/verifying-producer.js';
import { waitFor } from '../support/in-process-cluster.js';

/**
 * Failure tests (issue: nothing acknowledged is ever lost). A 3-node ZooKeeper ensemble and three
 * broker processes; a topic with 3 replicas and min.insync.replicas=2; a verifying producer writing
 * unique values with acks=all while faults are injected; afterwards every acknowledged value must be
 * read back, acks must have resumed within 30 s of each fault, new leaders must come from the
 * previous ISR, and every ISR must converge back to all replicas.
 */
const TOPIC = 'verify';
const SESSION_MS = 6000;
const LAG_MS = 3000;

describe('replication under failures (processes)', () => {
  let cluster: ProcessCluster;
  let producer: VerifyingProducer;
  const timeline: string[] = [];
  const t0 = Date.now();
  const note = (s: string) => timeline.push(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s ${s}`);

  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: 3,
      zookeepers: 3,
      brokerProps: {
        'zookeeper.session.timeout.ms': String(SESSION_MS),
        'replica.lag.time.max.ms': String(LAG_MS),
        'replica.fetch.wait.max.ms': '200',
        'replica.fetch.backoff.ms': '200',
        'controller.socket.timeout.ms': '5000',
        'auto.leader.rebalance.enable': 'false',
      },
    });
    const client = new KafkaClient({ brokers: cluster.bootstrap() });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }]);
    await client.close();
    expect(r!.errorCode).toBe(0);
    await waitFor(async () => (await cluster.partitionState(TOPIC, 2))?.isr.length === 3, 20_000, 'topic online');
    producer = new VerifyingProducer(cluster.bootstrap(), TOPIC);
    producer.start(400);
    await producer.waitForMoreAcks(200);
  }, 120_000);

  afterAll(async () => {
    await producer?.stop().catch(() => {});
    console.log(`failure-test timeline:\n${timeline.join('\n')}`);
    await cluster?.stop();
  });

  /** Every replica of every partition back in the ISR. */
  async function converged(timeoutMs = 45_000): Promise<void> {
    await waitFor(async () => {
      for (const p of [0, 1, 2]) if ((await cluster.partitionState(TOPIC, p))?.isr.length !== 3) return false;
      return true;
    }, timeoutMs, 'ISR convergence');
  }

  async function expectAcksResume(faultAt: number, label: string): Promise<void> {
    await producer.waitForMoreAcks(50, 30_000);
    const first = producer.firstAckAfter(faultAt)!;
    note(`${label}: first ack ${first - faultAt} ms after the fault`);
    expect(first - faultAt).toBeLessThan(30_000);
  }

  it('kill -9 the leader of partition 0, five times, restarting it each time', async () => {
    for (let round = 1; round <= 5; round++) {
      const before = (await cluster.partitionState(TOPIC, 0))!;
      const victim = cluster.broker(before.leader);
      const faultAt = Date.now();
      await victim.kill();
      note(`round ${round}: killed leader ${before.leader} (isr ${before.isr})`);
      const after = await waitFor(async () => {
        const s = await cluster.partitionState(TOPIC, 0);
        return s && s.leader !== before.leader && s.leader >= 0 ? s : null;
      }, 30_000, 'new leader');
      note(`round ${round}: new leader ${after.leader} epoch ${after.leaderEpoch}`);
      expect(before.isr).toContain(after.leader);
      await expectAcksResume(faultAt, `round ${round}`);
      await victim.start();
      await converged();
    }
  }, 300_000);

  it('kill -9 the controller: another broker takes over with a higher epoch', async () => {
    const controller = (await cluster.controllerId())!;
    const epochBefore = (await cluster.kafkaZk.getControllerEpoch())!.epoch;
    const faultAt = Date.now();
    await cluster.broker(controller).kill();
    note(`killed controller ${controller}`);
    const next = await waitFor(async () => {
      const c = await cluster.controllerId();
      return c !== null && c !== controller ? c : null;
    }, 30_000, 'new controller');
    note(`new controller ${next}`);
    expect((await cluster.kafkaZk.getControllerEpoch())!.epoch).toBeGreaterThan(epochBefore);
    await expectAcksResume(faultAt, 'controller kill');
    await cluster.broker(controller).start();
    await converged();
  }, 120_000);

  it('SIGSTOP a follower past replica.lag.time.max.ms: the ISR shrinks, then grows back after SIGCONT', async () => {
    const state = (await cluster.partitionState(TOPIC, 1))!;
    const followerId = state.isr.find((b) => b !== state.leader)!;
    const follower = cluster.broker(followerId);
    follower.pause();
    note(`paused follower ${followerId}`);
    await waitFor(async () => !(await cluster.partitionState(TOPIC, 1))!.isr.includes(followerId), 30_000, 'ISR shrink');
    note(`ISR of partition 1 shrank without ${followerId}`);
    await producer.waitForMoreAcks(50);
    follower.resume();
    note(`resumed follower ${followerId}`);
    await converged();
    note('ISR converged');
  }, 120_000);

  it('SIGSTOP the leader past the ZooKeeper session timeout: the zombie acknowledges nothing that is then lost', async () => {
    const before = (await cluster.partitionState(TOPIC, 2))!;
    const zombie = cluster.broker(before.leader);
    const faultAt = Date.now();
    zombie.pause();
    note(`paused leader ${before.leader} of partition 2`);
    const after = await waitFor(async () => {
      const s = await cluster.partitionState(TOPIC, 2);
      return s && s.leader !== before.leader && s.leader >= 0 ? s : null;
    }, 30_000, 'leader replaced');
    note(`partition 2 new leader ${after.leader}`);
    expect(before.isr).toContain(after.leader);
    await expectAcksResume(faultAt, 'zombie leader');
    zombie.resume();
    note(`resumed zombie ${before.leader}`);
    await converged(60_000);
  }, 150_000);

  it('kill one ZooKeeper node, then a second: writes stall, nothing is lost, and they resume after recovery', async () => {
    const [n1, n2] = cluster.ensemble.nodes;
    await n1!.kill();
    note('killed zk node 1');
    await producer.waitForMoreAcks(50);
    await n2!.kill();
    note('killed zk node 2 (no quorum)');
    await new Promise((r) => setTimeout(r, 5000));
    const faultEnd = Date.now();
    await n1!.start();
    await n2!.start();
    note('zk nodes restarted');
    await expectAcksResume(faultEnd, 'zk quorum back');
    await converged(60_000);
  }, 150_000);

  it('clean rolling restart of all brokers under load', async () => {
    for (const id of [1, 2, 3]) {
      const faultAt = Date.now();
      await cluster.broker(id).stop();
      note(`stopped broker ${id} (SIGTERM)`);
      await expectAcksResume(faultAt, `rolling ${id}`);
      await cluster.broker(id).start();
      await converged();
    }
  }, 240_000);

  it('with 2 of 3 replicas down, acks=all gets NOT_ENOUGH_REPLICAS while acks=1 succeeds', async () => {
    await producer.stop();
    const state = (await cluster.partitionState(TOPIC, 0))!;
    const others = [1, 2, 3].filter((b) => b !== state.leader);
    for (const id of others) await cluster.broker(id).stop();
    await waitFor(async () => (await cluster.partitionState(TOPIC, 0))!.isr.length === 1, 30_000, 'ISR of one');
    const client = new KafkaClient({ brokers: cluster.broker(state.leader).bootstrap });
    const strict = new Producer(client, { acks: -1, retries: 0 });
    await expect(strict.send({ topic: TOPIC, messages: [{ value: 'must-fail', partition: 0 }] })).rejects.toMatchObject({ code: ErrorCode.NOT_ENOUGH_REPLICAS });
    const loose = new Producer(client, { acks: 1, retries: 0 });
    const [meta] = await loose.send({ topic: TOPIC, messages: [{ value: 'acks-1-ok', partition: 0 }] });
    expect(meta!.offset).toBeGreaterThanOrEqual(0);
    await client.close();
    for (const id of others) await cluster.broker(id).start();
    await converged();
  }, 120_000);

  it('every acknowledged value is read back (duplicates allowed, gaps not)', async () => {
    const r = await kcat(['-b', cluster.bootstrap(), '-C', '-t', TOPIC, '-e', '-q', '-f', '%s\n'], undefined, 120_000);
    expect(r.code, r.stderr).toBe(0);
    const read = new Set(r.stdout.toString().split('\n'));
    const missing = [...producer.acked].filter((v) => !read.has(v));
    note(`acknowledged ${producer.acked.size}, read ${read.size - 1} distinct, missing ${missing.length}; producer errors ${JSON.stringify([...producer.errors])}`);
    expect(missing.slice(0, 20)).toEqual([]);
    expect(producer.acked.size).toBeGreaterThan(1000);
  }, 180_000);
});
