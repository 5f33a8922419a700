import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';
import { KcatMember } from './kcat-member.js';

const PARTITIONS = 12;
const PROPS = {
  'num.partitions': String(PARTITIONS),
  'default.replication.factor': '2',
  'offsets.topic.num.partitions': '5',
  'offsets.topic.replication.factor': '2',
  'group.initial.rebalance.delay.ms': '300',
};

/** kcat -G (librdkafka 2.0.2 balanced consumers) against two gregor brokers and a real ZooKeeper. */
describe('kcat -G consumer groups', () => {
  let zk: TestZooKeeper;
  const brokers: TestBroker[] = [];
  const members: KcatMember[] = [];
  beforeAll(async () => {
    zk = await startZooKeeper();
    brokers.push(await startBroker(zk, 1, PROPS), await startBroker(zk, 2, PROPS));
  });
  afterAll(async () => {
    await Promise.all(members.map((m) => m.kill()));
    for (const b of brokers) await b.stop();
    await zk?.stop();
    for (const b of brokers) removeDir(b.logDir);
  });
  const bootstrap = () => brokers.map((b) => b.bootstrap).join(',');
  const produce = async (topic: string, from: number, n: number) => {
    const lines = Array.from({ length: n }, (_, i) => `m${from + i}`).join('\n') + '\n';
    const r = await kcat(['-b', bootstrap(), '-P', '-t', topic, '-X', 'linger.ms=5'], lines);
    expect(r.code, r.stderr).toBe(0);
  };

  it('three members split 12 partitions with no overlap and read everything once; a rerun reads nothing old; a leave rebalances in < 10 s', async () => {
    await produce('split', 0, 1); // creates the topic
    const warm = await kcat(['-b', bootstrap(), '-C', '-t', 'split', '-e', '-q', '-o', 'beginning']);
    expect(warm.code, warm.stderr).toBe(0);
    for (let i = 0; i < 3; i++) members.push(new KcatMember(bootstrap(), 'g-split', 'split'));
    // Stable generation: every member holds partitions, together all 12, none twice.
    await waitFor(() => {
      const sets = members.map((m) => m.assigned);
      if (sets.some((s) => !s || s.length === 0)) return false;
      const all = sets.flatMap((s) => s!);
      return all.length === PARTITIONS && new Set(all).size === PARTITIONS;
    }, 30_000, 'three-way assignment');
    const owners = new Map<number, number>();
    members.forEach((m, i) => m.assigned!.forEach((p) => owners.set(p, i)));

    await produce('split', 1, 1199);
    await waitFor(() => members.reduce((n, m) => n + m.lines.length, 0) >= 1200, 30_000, 'all 1200 consumed');
    await new Promise((r) => setTimeout(r, 500));
    const seen = new Set<string>();
    members.forEach((m, i) => {
      for (const l of m.lines) {
        expect(owners.get(l.partition), `partition ${l.partition} read by member ${i}`).toBe(i);
        seen.add(l.value);
      }
    });
    expect(members.reduce((n, m) => n + m.lines.length, 0)).toBe(1200);
    expect(seen.size).toBe(1200);

    // One member leaves (close = LeaveGroup): the other two take over all partitions quickly.
    const before = members.map((m) => m.assignments);
    const left = Date.now();
    expect(await members[2]!.stop()).toBe(0);
    await waitFor(() => {
      const rest = members.slice(0, 2);
      if (rest.some((m, i) => m.assignments <= before[i]! || !m.assigned)) return false;
      return new Set(rest.flatMap((m) => m.assigned!)).size === PARTITIONS;
    }, 10_000, 'rebalance after leave');
    expect(Date.now() - left).toBeLessThan(10_000);
    // Every member closes cleanly (kcat's exit code 0 after SIGTERM: final commit and LeaveGroup done).
    expect(await Promise.all(members.splice(0).map((m) => m.stop()))).toEqual([0, 0, 0]);

    // Rerun of the same group with auto.offset.reset=earliest: committed offsets win, so only the 5 new records come back.
    await produce('split', 1200, 5);
    const rerun = await kcat(['-b', bootstrap(), '-G', 'g-split', 'split', '-e', '-f', '%s\\n', '-X', 'auto.offset.reset=earliest', '-X', 'session.timeout.ms=6000'], undefined, 45_000);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout.toString().trim().split('\n').sort()).toEqual(['m1200', 'm1201', 'm1202', 'm1203', 'm1204']);
  }, 120_000);
});
