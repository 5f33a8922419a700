import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VerifyingProducer } from '../support/verifying-producer.js';
import { waitFor } from '../support/in-process-cluster.js';
import { ComposeCluster } from './compose-cluster.js';
import { VerifyingConsumer } from './verifying-consumer.js';

/**
 * Chaos tests against the compose.yaml cluster in containers (issue 6): docker kill / start / pause of
 * broker and ZooKeeper containers while a verifying producer (acks=all, unique values) and a verifying
 * consumer run throughout. Pass criteria: every acknowledged value is consumed, acks resume within 30 s
 * of each fault, new leaders come from the previous ISR, every ISR converges back to all replicas.
 * Needs the engine and images of scripts/docker-setup.sh; without them these tests FAIL (never skip).
 */
const TOPIC = 'chaos';
const PARTITIONS = [0, 1, 2];
const ACK_RESUME_MS = 30_000;

describe('cluster in containers under faults (testcontainers + compose.yaml)', () => {
  let cluster: ComposeCluster;
  let producer: VerifyingProducer;
  let consumer: VerifyingConsumer;
  const t0 = Date.now();
  const lines: string[] = [];
  const at = (t: number) => `+${((t - t0) / 1000).toFixed(1)}s`;
  const note = (s: string) => lines.push(`${at(Date.now()).padStart(8)} ${s}`);
  /** Per scenario: the longest stretch without any acknowledgement around the fault (ms). */
  const windows: { scenario: string; faultToNewLeaderMs: number | null; firstAckAfterMs: number; longestAckGapMs: number }[] = [];

  /** Why the cluster could not start: every test then FAILS with it (an unavailable engine is never a skip). */
  let setupError: unknown = null;
  beforeEach(() => {
    if (setupError) throw setupError;
  });

  beforeAll(async () => {
    try {
      await setUp();
    } catch (err) {
      setupError = err;
    }
  }, 900_000); // includes waiting for another compose cluster of this machine to go (compose-lock.ts)

  async function setUp(): Promise<void> {
    cluster = await ComposeCluster.start(`gregorchaos${process.pid}`, TOPIC);
    note(`cluster healthy in ${((Date.now() - t0) / 1000).toFixed(1)} s (project ${cluster.project}, bootstrap ${cluster.bootstrap()})`);
    // Through the HTTP admin of broker 1, as an operator would.
    const res = await fetch(`${cluster.httpUrl(1)}/v1/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...cluster.httpAuth() },
      body: JSON.stringify({ name: TOPIC, partitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    await converged(30_000);
    // The consumer group (two consumer-service containers) reads the topic throughout, as the verifying consumer does.
    await cluster.startConsumers();
    await groupOwnsAll();
    note(`consumer services up; group ${cluster.consumerGroup} owns every partition`);
    producer = new VerifyingProducer(cluster.bootstrap(), TOPIC, 'c');
    producer.start(300);
    consumer = new VerifyingConsumer(cluster.bootstrap(), TOPIC);
    consumer.start(PARTITIONS);
    await producer.waitForMoreAcks(200);
  }

  afterAll(async () => {
    await producer?.stop().catch(() => {});
    await consumer?.stop().catch(() => {});
    console.log(`chaos timeline:\n${lines.join('\n')}`);
    console.log(`chaos unavailability windows (ms):\n${windows.map((w) => JSON.stringify(w)).join('\n')}`);
    await cluster?.down();
  }, 120_000);

  async function converged(timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => {
      for (const p of PARTITIONS) if ((await cluster.partitionState(TOPIC, p))?.isr.length !== 3) return false;
      return true;
    }, timeoutMs, 'ISR convergence');
  }

  /** Every partition of the topic owned by a live member of the consumer group; returns the owners. */
  async function groupOwnsAll(timeoutMs = 60_000, without?: string): Promise<string[]> {
    return waitFor(async () => {
      const owners = await cluster.owners(TOPIC, PARTITIONS);
      if (owners.some((o) => o === null || (without !== undefined && o.includes(without)))) return null;
      return owners as string[];
    }, timeoutMs, 'consumer group owning every partition');
  }

  /** Waits for acks after the fault and records the scenario's window; fails when acks took 30 s or more. */
  async function acksResumed(scenario: string, faultAt: number, newLeaderAt: number | null): Promise<void> {
    await producer.waitForMoreAcks(50, ACK_RESUME_MS + 15_000);
    const first = producer.firstAckAfter(faultAt)!;
    const times = producer.ackTimes.filter((t) => t >= faultAt - 1000);
    let gap = 0;
    for (let i = 1; i < times.length && times[i - 1]! < first + 5000; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
    const w = { scenario, faultToNewLeaderMs: newLeaderAt === null ? null : newLeaderAt - faultAt, firstAckAfterMs: first - faultAt, longestAckGapMs: gap };
    windows.push(w);
    note(`${scenario}: first ack ${w.firstAckAfterMs} ms after the fault, longest gap between acks ${gap} ms`);
    expect(gap).toBeLessThan(ACK_RESUME_MS);
  }

  it('clients inside the compose network use the CLIENT listener (:29092), never the inter-broker one (:19092)', async () => {
    // The consumer services found the brokers in ZooKeeper and fetch from them: they read records...
    const read = await waitFor(async () => {
      const parts = [...(await cluster.consumerPartitions(1)), ...(await cluster.consumerPartitions(2))].filter((p) => p.topic === TOPIC);
      return parts.some((p) => p.consumedOffset > 0) ? parts : null;
    }, 60_000, 'consumer services reading');
    // ...over connections to the brokers' CLIENT listener only (the inter-broker listener takes controller requests).
    for (const service of ['consumer1', 'consumer2']) {
      const ports = cluster.connectedPorts(service);
      note(`listeners: ${service} connected to ports ${[...new Set(ports)].join(', ')}`);
      expect(ports).toContain(29092);
      expect(ports).not.toContain(19092);
      expect(ports).not.toContain(9092);
    }
    note(`listeners: consumer services read ${read.map((p) => `${p.partition}@${p.consumedOffset}`).join(' ')} over CLIENT`);
  }, 90_000);

  it('docker kill the leader of partition 0 and start it again, 3 times', async () => {
    for (let round = 1; round <= 3; round++) {
      const before = (await cluster.partitionState(TOPIC, 0))!;
      const service = `broker${before.leader}`;
      const faultAt = Date.now();
      await cluster.kill(service);
      note(`leader kill ${round}: fault at ${at(faultAt)}: killed ${service} (leader of ${TOPIC}-0, isr ${before.isr})`);
      const after = await waitFor(async () => {
        const s = await cluster.partitionState(TOPIC, 0);
        return s && s.leader !== before.leader && s.leader >= 0 ? s : null;
      }, 30_000, 'new leader');
      const newLeaderAt = Date.now();
      note(`leader kill ${round}: new leader ${after.leader} at ${at(newLeaderAt)} (${newLeaderAt - faultAt} ms, epoch ${after.leaderEpoch})`);
      expect(before.isr).toContain(after.leader);
      await acksResumed(`leader kill ${round}`, faultAt, newLeaderAt);
      await cluster.startService(service);
      await cluster.waitHealthy(service);
      await converged();
      note(`leader kill ${round}: ${service} back, ISRs converged at ${at(Date.now())}`);
    }
  }, 400_000);

  it('docker kill the controller: another broker takes over with a higher epoch', async () => {
    const controller = (await cluster.controllerId())!;
    const epochBefore = (await cluster.kafkaZk.getControllerEpoch())!.epoch;
    const service = `broker${controller}`;
    const faultAt = Date.now();
    await cluster.kill(service);
    note(`controller kill: fault at ${at(faultAt)}: killed ${service} (controller, epoch ${epochBefore})`);
    const next = await waitFor(async () => {
      const c = await cluster.controllerId();
      return c !== null && c !== controller ? c : null;
    }, 30_000, 'new controller');
    const newAt = Date.now();
    note(`controller kill: new controller ${next} at ${at(newAt)} (${newAt - faultAt} ms)`);
    expect((await cluster.kafkaZk.getControllerEpoch())!.epoch).toBeGreaterThan(epochBefore);
    await acksResumed('controller kill', faultAt, newAt);
    await cluster.startService(service);
    await cluster.waitHealthy(service);
    await converged();
    note(`controller kill: ${service} back, ISRs converged at ${at(Date.now())}`);
  }, 150_000);

  it('docker pause a follower past replica.lag.time.max.ms: the ISR shrinks, and grows back after unpause', async () => {
    const state = (await cluster.partitionState(TOPIC, 1))!;
    // A follower that leads nothing, when there is one: pausing a leader is a different fault (a zombie leader).
    const leaders = new Set<number>();
    for (const p of PARTITIONS) leaders.add((await cluster.partitionState(TOPIC, p))!.leader);
    const followers = state.isr.filter((b) => b !== state.leader);
    const followerId = followers.find((b) => !leaders.has(b)) ?? followers[0]!;
    if (leaders.has(followerId)) note(`follower pause: every follower of ${TOPIC}-1 leads a partition; broker ${followerId} is also a leader`);
    const service = `broker${followerId}`;
    const faultAt = Date.now();
    await cluster.pause(service);
    note(`follower pause: fault at ${at(faultAt)}: paused ${service} (follower of ${TOPIC}-1, leader ${state.leader})`);
    await waitFor(async () => !(await cluster.partitionState(TOPIC, 1))!.isr.includes(followerId), 30_000, 'ISR shrink');
    const shrunkAt = Date.now();
    note(`follower pause: ISR of ${TOPIC}-1 shrank without ${followerId} at ${at(shrunkAt)} (${shrunkAt - faultAt} ms)`);
    await acksResumed('follower pause', faultAt, null);
    const unpausedAt = Date.now();
    await cluster.unpause(service);
    await converged();
    note(`follower pause: unpaused at ${at(unpausedAt)}, ISRs converged ${Date.now() - unpausedAt} ms later`);
  }, 150_000);

  it('docker kill a consumer-service container and start it: the group owns every partition again', async () => {
    const faultAt = Date.now();
    await cluster.kill('consumer1');
    note(`consumer kill: fault at ${at(faultAt)}: killed consumer1 (owners ${(await cluster.owners(TOPIC, PARTITIONS)).join(', ')})`);
    const survivors = await groupOwnsAll(60_000, '_consumer1-');
    const takenAt = Date.now();
    note(`consumer kill: consumer2 owns every partition at ${at(takenAt)} (${takenAt - faultAt} ms): ${survivors.join(', ')}`);
    const restartAt = Date.now();
    await cluster.startService('consumer1');
    await cluster.waitHealthy('consumer1');
    const back = await waitFor(async () => {
      const owners = await cluster.owners(TOPIC, PARTITIONS);
      return owners.every((o) => o !== null) && owners.some((o) => o!.includes('_consumer1-')) ? owners : null;
    }, 60_000, 'consumer1 owning partitions again');
    note(`consumer kill: consumer1 back, group rebalanced at ${at(Date.now())} (${Date.now() - restartAt} ms after the restart): ${back.join(', ')}`);
    windows.push({ scenario: 'consumer kill (ownership)', faultToNewLeaderMs: takenAt - faultAt, firstAckAfterMs: 0, longestAckGapMs: 0 });
  }, 150_000);

  it('docker kill one ZooKeeper container, then a second (no quorum), then start both: nothing lost, acks resume', async () => {
    const firstAt = Date.now();
    await cluster.kill('zk1');
    note(`zookeeper: fault at ${at(firstAt)}: killed zk1 (quorum kept)`);
    await acksResumed('zookeeper 1 of 3 down', firstAt, null);
    const secondAt = Date.now();
    await cluster.kill('zk2');
    note(`zookeeper: killed zk2 at ${at(secondAt)} (no quorum)`);
    await new Promise((r) => setTimeout(r, 8000));
    const restoreAt = Date.now();
    await Promise.all([cluster.startService('zk1'), cluster.startService('zk2')]);
    note(`zookeeper: started zk1 and zk2 at ${at(restoreAt)}`);
    await Promise.all([cluster.waitHealthy('zk1'), cluster.waitHealthy('zk2')]);
    note(`zookeeper: quorum healthy at ${at(Date.now())} (${Date.now() - restoreAt} ms after restore)`);
    await acksResumed('zookeeper quorum restored', restoreAt, null);
    for (const b of ['broker1', 'broker2', 'broker3']) await cluster.waitHealthy(b, 60_000);
    await converged();
    note(`zookeeper: brokers healthy, ISRs converged at ${at(Date.now())}`);
  }, 180_000);

  it('every acknowledged value was consumed by the consumer that ran throughout', async () => {
    await producer.stop();
    const missing = await consumer.missing(producer.acked, 60_000);
    note(
      `verify: acknowledged ${producer.acked.size}, consumed ${consumer.seen.size} distinct, missing ${missing.length}; ` +
        `producer errors ${JSON.stringify([...producer.errors])}, consumer errors ${JSON.stringify([...consumer.errors])}`,
    );
    expect(missing.slice(0, 20)).toEqual([]);
    expect(producer.acked.size).toBeGreaterThan(1000);
    await converged();
    // The consumer group owns every partition and has read up to the end (lag 0 on both services).
    await groupOwnsAll();
    await waitFor(async () => {
      const parts = [...(await cluster.consumerPartitions(1)), ...(await cluster.consumerPartitions(2))].filter((p) => p.topic === TOPIC);
      return parts.length === PARTITIONS.length && parts.every((p) => p.lag === 0);
    }, 60_000, 'consumer group lag 0');
    note('verify: consumer group owns every partition with lag 0');
  }, 120_000);
});
