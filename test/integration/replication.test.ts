import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Three brokers in one process with a real ZooKeeper: followers fetch, HW follows the ISR, leadership moves. */
describe('replication across three brokers', () => {
  let zk: TestZooKeeper;
  const brokers: TestBroker[] = [];
  const props = { 'replica.lag.time.max.ms': '3000', 'replica.fetch.wait.max.ms': '200', 'default.replication.factor': '3', 'min.insync.replicas': '2' };
  beforeAll(async () => {
    zk = await startZooKeeper();
    for (const id of [1, 2, 3]) brokers.push(await startBroker(zk, id, props));
    await waitFor(() => brokers.every((b) => b.server.metadataCache.aliveBrokers().length === 3), 15_000, 'all brokers known');
  });
  afterAll(async () => {
    for (const b of brokers) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });

  const byId = (id: number) => brokers.find((b) => b.server.brokerId === id)!;
  const bootstrap = () => brokers.filter((b) => b.server.state === 'RunningAsBroker').map((b) => b.bootstrap).join(',');

  it('acks=all writes reach every replica; followers hold identical logs and the HW', async () => {
    const [r] = await brokers[0]!.server.adminManager.createTopics(
      [{ name: 'replicated', numPartitions: 3, replicationFactor: 3, assignments: null, configs: {} }],
      15_000,
      false,
    );
    // CreateTopics on a non-controller is fine through AdminManager (it writes ZooKeeper directly).
    expect(r!.errorCode).toBe(0);
    const lines = Array.from({ length: 3000 }, (_, i) => `k${i % 17}:v${i}`).join('\n') + '\n';
    const p = await kcat(['-b', bootstrap(), '-P', '-t', 'replicated', '-K:', '-X', 'acks=all'], lines);
    expect(p.code, p.stderr).toBe(0);
    await waitFor(
      () =>
        [0, 1, 2].every((partition) => {
          const logs = brokers.map((b) => b.server.replicaManager.getPartition('replicated', partition)?.log);
          return logs.every((l) => l && l.logEndOffset === logs[0]!.logEndOffset && l.highWatermark === l.logEndOffset);
        }),
      15_000,
      'followers caught up',
    );
    const total = [0, 1, 2].reduce((n, partition) => n + brokers[0]!.server.replicaManager.getPartition('replicated', partition)!.logEndOffset, 0);
    expect(total).toBe(3000);
    for (const partition of [0, 1, 2]) {
      const leaderId = brokers[0]!.server.metadataCache.partition('replicated', partition)!.leader;
      const leaderLog = byId(leaderId).server.replicaManager.getPartition('replicated', partition)!.log!;
      const bytes = leaderLog.read(0, 1 << 30, leaderLog.logEndOffset, true).records;
      for (const b of brokers) {
        const log = b.server.replicaManager.getPartition('replicated', partition)!.log!;
        expect(log.read(0, 1 << 30, log.logEndOffset, true).records.equals(bytes)).toBe(true);
      }
    }
  });

  it('followers read large fetch responses into reused memory and still hold exactly the leader\'s bytes', async () => {
    const [r] = await brokers[0]!.server.adminManager.createTopics([{ name: 'bulk', numPartitions: 1, replicationFactor: 3, assignments: null, configs: {} }], 15_000, false);
    expect(r!.errorCode).toBe(0);
    await waitFor(() => brokers.every((b) => b.server.replicaManager.getPartition('bulk', 0)?.log), 15_000, 'bulk-0 on every broker');
    // 200,000 records of ~100 bytes in batches of up to 10,000: fetch responses of a megabyte (replica.fetch.max.bytes).
    const value = 'x'.repeat(90);
    const lines = Array.from({ length: 200_000 }, (_, i) => `${i}-${value}`).join('\n') + '\n';
    const p = await kcat(['-b', bootstrap(), '-P', '-t', 'bulk', '-X', 'acks=all', '-X', 'linger.ms=20', '-X', 'batch.num.messages=10000'], lines);
    expect(p.code, p.stderr).toBe(0);
    const logs = () => brokers.map((b) => b.server.replicaManager.getPartition('bulk', 0)!.log!);
    await waitFor(() => logs().every((l) => l.logEndOffset === 200_000 && l.highWatermark === 200_000), 30_000, 'followers caught up');
    const leaderId = brokers[0]!.server.metadataCache.partition('bulk', 0)!.leader;
    const leaderLog = byId(leaderId).server.replicaManager.getPartition('bulk', 0)!.log!;
    const bytes = leaderLog.read(0, 1 << 30, leaderLog.logEndOffset, true).records;
    for (const b of brokers) {
      const log = b.server.replicaManager.getPartition('bulk', 0)!.log!;
      expect(log.read(0, 1 << 30, log.logEndOffset, true).records.equals(bytes)).toBe(true);
      if (b.server.brokerId === leaderId) continue;
      const stats = b.server.replicaManager.fetcherManager.responseBuffers.stats;
      expect(stats.released).toBe(stats.acquired); // every large response given back once processed
      expect(stats.reused).toBeGreaterThan(0);
    }
  });

  it('a stopped follower leaves the ISR; acks=all still works with min.insync.replicas=2; it rejoins after restart', async () => {
    const state = brokers[0]!.server.metadataCache.partition('replicated', 0)!;
    const followerId = state.replicas.find((r) => r !== state.leader)!;
    const follower = byId(followerId);
    const logDir = follower.logDir;
    await follower.stop();
    brokers.splice(brokers.indexOf(follower), 1);
    await waitFor(() => {
      const s = byId(state.leader).server.replicaManager.getPartition('replicated', 0)!;
      return !s.isr.includes(followerId);
    }, 20_000, 'ISR shrink');
    const p = await kcat(['-b', bootstrap(), '-P', '-t', 'replicated', '-p', '0', '-X', 'acks=all'], 'after-shrink-1\nafter-shrink-2\n');
    expect(p.code, p.stderr).toBe(0);
    const restarted = await startBroker(zk, followerId, { ...props, port: String(follower.port) }, logDir);
    brokers.push(restarted);
    await waitFor(() => byId(state.leader).server.replicaManager.getPartition('replicated', 0)!.isr.includes(followerId), 20_000, 'ISR expand');
    const leaderLog = byId(state.leader).server.replicaManager.getPartition('replicated', 0)!.log!;
    await waitFor(() => restarted.server.replicaManager.getPartition('replicated', 0)?.log?.logEndOffset === leaderLog.logEndOffset, 10_000, 'caught up');
    // The controller learns the ISR change through /isr_change_notification and tells every broker.
    await waitFor(() => brokers.every((b) => b.server.metadataCache.partition('replicated', 0)!.isr.includes(followerId)), 15_000, 'metadata ISR');
  });

  it('stopping the leader moves leadership to an ISR member with a higher epoch and nothing acknowledged is lost', async () => {
    // The leader's own view of the ISR is authoritative (metadata caches hear of ISR changes later).
    const cached = brokers[0]!.server.metadataCache.partition('replicated', 1)!;
    const leader = byId(cached.leader);
    const p = leader.server.replicaManager.getPartition('replicated', 1)!;
    const before = { leader: cached.leader, isr: [...p.isr], leaderEpoch: p.leaderEpoch };
    const consumedBefore = await kcat(['-b', bootstrap(), '-C', '-t', 'replicated', '-p', '1', '-e', '-q']);
    await leader.stop();
    brokers.splice(brokers.indexOf(leader), 1);
    const after = await waitFor(() => {
      const s = brokers[0]!.server.metadataCache.partition('replicated', 1)!;
      return s.leader !== before.leader && s.leader >= 0 ? s : null;
    }, 20_000, 'new leader');
    expect(before.isr).toContain(after.leader);
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);
    const consumedAfter = await kcat(['-b', bootstrap(), '-C', '-t', 'replicated', '-p', '1', '-e', '-q']);
    expect(consumedAfter.stdout.toString()).toBe(consumedBefore.stdout.toString());
    const restarted = await startBroker(zk, leader.server.brokerId, { ...props, port: String(leader.port) }, leader.logDir);
    brokers.push(restarted);
  });
});
