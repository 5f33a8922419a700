import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const TOPIC = 'replicated-sessions';
const PARTITIONS = 24;
const LAG_MS = 3000;

/**
 * Followers on incremental fetch sessions (KIP-227), three brokers in one process: replication, the ISR
 * staying whole while partitions are idle (implied partitions still count as fetched), and the fall
 * back to a full fetch when the leader no longer knows the session (FETCH_SESSION_ID_NOT_FOUND).
 */
describe('replica fetchers on fetch sessions', () => {
  let zk: TestZooKeeper;
  const brokers: TestBroker[] = [];
  let client: KafkaClient;
  let sent = 0;

  const props = { 'replica.lag.time.max.ms': String(LAG_MS), 'replica.fetch.wait.max.ms': '200', 'min.insync.replicas': '2', 'auto.leader.rebalance.enable': 'false' };

  beforeAll(async () => {
    zk = await startZooKeeper();
    for (const id of [1, 2, 3]) brokers.push(await startBroker(zk, id, props));
    await waitFor(() => brokers.every((b) => b.server.metadataCache.aliveBrokers().length === 3), 15_000, 'all brokers known');
    client = new KafkaClient({ brokers: brokers.map((b) => b.bootstrap) });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3 }]);
    expect(r!.errorCode).toBe(0);
    await waitFor(() => allInSync(), 20_000, 'ISR complete');
  });
  afterAll(async () => {
    await client?.close();
    for (const b of brokers) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });

  function allInSync(): boolean {
    const cache = brokers[0]!.server.metadataCache;
    return Array.from({ length: PARTITIONS }, (_, p) => cache.partition(TOPIC, p)).every((s) => s && s.isr.length === 3);
  }

  async function produce(n: number): Promise<void> {
    const producer = new Producer(client, { acks: -1 });
    const messages = Array.from({ length: n }, (_, i) => ({ key: `k${sent + i}`, value: `value-${sent + i}`, partition: (sent + i) % PARTITIONS }));
    sent += n;
    for (const m of await producer.send({ topic: TOPIC, messages })) expect(m.offset).toBeGreaterThanOrEqual(0);
  }

  /** Every replica of every partition holds the leader's bytes and its HW. */
  async function identicalReplicas(): Promise<void> {
    await waitFor(
      () =>
        Array.from({ length: PARTITIONS }, (_, p) => p).every((p) => {
          const logs = brokers.map((b) => b.server.replicaManager.getPartition(TOPIC, p)?.log);
          return logs.every((l) => l && l.logEndOffset === logs[0]!.logEndOffset && l.highWatermark === l.logEndOffset);
        }),
      20_000,
      'replicas caught up',
    );
    let total = 0;
    for (let p = 0; p < PARTITIONS; p++) {
      const logs = brokers.map((b) => b.server.replicaManager.getPartition(TOPIC, p)!.log!);
      const bytes = logs.map((l) => l.read(0, 1 << 30, l.logEndOffset, true).records);
      for (const b of bytes) expect(b.equals(bytes[0]!)).toBe(true);
      total += logs[0]!.logEndOffset;
    }
    expect(total).toBe(sent);
  }

  const followerStats = () => brokers.map((b) => ({ ...b.server.fetchManager.stats.follower }));

  it('followers replicate over privileged incremental sessions, and idle partitions stay in the ISR', async () => {
    await produce(2400);
    await identicalReplicas();
    for (const b of brokers) {
      const { full, incremental } = b.server.fetchManager.stats.follower;
      expect(incremental).toBeGreaterThan(full);
      const sessions = b.server.fetchManager.cache.sessions();
      // One session per follower broker that follows this broker's leaders (two others, by the round-robin assignment).
      expect(sessions.length).toBe(2);
      expect(sessions.every((s) => s.privileged)).toBe(true);
      expect(b.server.fetchManager.cache.totalPartitions).toBe(2 * PARTITIONS / 3);
    }
    // Idle for twice replica.lag.time.max.ms: followers send empty incremental fetches, the leader counts every
    // session partition as fetched, so nobody leaves the ISR.
    const shrinks = brokers.map((b) => b.server.isrManager.shrinks);
    const before = followerStats();
    await new Promise((r) => setTimeout(r, 2 * LAG_MS));
    expect(brokers.map((b) => b.server.isrManager.shrinks)).toEqual(shrinks);
    expect(allInSync()).toBe(true);
    const after = followerStats();
    for (const [i, a] of after.entries()) {
      expect(a.incremental - before[i]!.incremental).toBeGreaterThan(5);
      expect(a.full).toBe(before[i]!.full);
    }
  });

  it('a leader that lost the sessions answers FETCH_SESSION_ID_NOT_FOUND; followers fall back to a full fetch and go on incrementally', async () => {
    const leader = brokers[0]!;
    const cache = leader.server.fetchManager.cache;
    const before = { ...leader.server.fetchManager.stats.follower };
    const lost = cache.sessions().map((s) => s.id);
    expect(lost.length).toBe(2);
    for (const id of lost) cache.remove(id);
    await waitFor(() => cache.size === 2, 10_000, 'new follower sessions');
    expect(cache.sessions().some((s) => lost.includes(s.id))).toBe(false);
    const after = { ...leader.server.fetchManager.stats.follower };
    expect(after.sessionIdNotFound - before.sessionIdNotFound).toBe(2);
    expect(after.full - before.full).toBe(2);
    await produce(600);
    await identicalReplicas();
    expect(leader.server.fetchManager.stats.follower.incremental).toBeGreaterThan(after.incremental);
    expect(allInSync()).toBe(true);
  });

  it('a leader change and a follower restart: the new leader gets full then incremental fetches, and the restarted broker catches up', async () => {
    const stopped = brokers[2]!;
    const stoppedId = stopped.server.brokerId;
    await stopped.stop(); // controlled shutdown: its partitions get new leaders
    await waitFor(() => Array.from({ length: PARTITIONS }, (_, p) => brokers[0]!.server.metadataCache.partition(TOPIC, p)!.leader).every((l) => l !== stoppedId), 20_000, 'leaders moved');
    await produce(600);
    const restarted = await startBroker(zk, stoppedId, { ...props, port: String(stopped.port) }, stopped.logDir);
    brokers[2] = restarted;
    await waitFor(() => allInSync(), 30_000, 'restarted broker back in the ISR');
    await produce(600);
    await identicalReplicas();
    // The restarted broker follows both others, each over a session the leader knows and uses incrementally.
    const fetchers = restarted.server.replicaManager.fetcherManager.fetchers();
    expect(fetchers.map((f) => f.opts.source.brokerId).sort()).toEqual(brokers.slice(0, 2).map((b) => b.server.brokerId).sort());
    for (const f of fetchers) {
      const leader = brokers.find((b) => b.server.brokerId === f.opts.source.brokerId)!;
      const session = leader.server.fetchManager.cache.get(f.fetchSession.sessionId);
      expect(session?.privileged).toBe(true);
      expect(session!.epoch).toBeGreaterThan(2);
      // The leader moves the epoch on when a request arrives, the follower when its answer does.
      expect([session!.epoch - 1, session!.epoch]).toContain(f.fetchSession.epoch);
    }
    for (const b of brokers.slice(0, 2)) expect(b.server.fetchManager.stats.follower.incremental).toBeGreaterThan(b.server.fetchManager.stats.follower.full);
  });
});
