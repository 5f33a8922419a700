import { describe, expect, it } from 'vitest';
import { trackedProcessCount } from '@gregor/launcher';
import { ProcessCluster } from '../support/process-cluster.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Teardown never leaks: ProcessCluster.stop() takes everything down whatever state the processes are in. */
describe('ProcessCluster.stop()', () => {
  it('kills ZooKeeper and every broker when one broker is already dead (kill -9 behind its back) and others are SIGSTOPped', async () => {
    const cluster = await ProcessCluster.start({ brokers: 2, zookeepers: 1 });
    const pids = [...cluster.brokers.values()].map((b) => b.pid!);
    const zkPids = cluster.ensemble.nodes.map((n) => n.pid!);
    expect([...pids, ...zkPids].every((p) => Number.isInteger(p) && alive(p))).toBe(true);
    process.kill(pids[0]!, 'SIGKILL'); // dead before stop(), its wrapper not told
    process.kill(pids[1]!, 'SIGSTOP');
    process.kill(zkPids[0]!, 'SIGSTOP');
    await cluster.stop();
    for (const p of [...pids, ...zkPids]) expect(alive(p), `pid ${p} still alive`).toBe(false);
    expect(trackedProcessCount()).toBe(0);
  }, 90_000);
});
