import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { ZkError, ZkErrorCode, type PartitionState } from '@gregor/zookeeper';
import type { IsrWrite } from '../cluster/isr-writer.js';
import { IsrManager, type IsrZk } from './isr-manager.js';

/** The partition state znode, and what each call does: a test decides failures call by call. */
class FakeZk implements IsrZk {
  state: PartitionState = { controllerEpoch: 1, leader: 1, leaderEpoch: 5, isr: [1, 2] };
  version = 7;
  /** Per call: 'ok' applies, 'lost' applies then throws CONNECTION_LOSS (the ambiguous case), 'timeout' throws without applying. */
  writes: ('ok' | 'lost' | 'timeout')[] = [];
  readFailures = 0;
  reads = 0;
  notifications: { topic: string; partition: number }[][] = [];

  async updatePartitionState(_topic: string, _partition: number, state: PartitionState, expected: number): Promise<number> {
    const mode = this.writes.shift() ?? 'ok';
    if (mode === 'timeout') throw new ZkError(ZkErrorCode.OPERATION_TIMEOUT, '/brokers/topics/t/partitions/0/state');
    if (expected !== this.version) throw new ZkError(ZkErrorCode.BAD_VERSION, '/brokers/topics/t/partitions/0/state');
    this.state = state;
    this.version++;
    if (mode === 'lost') throw new ZkError(ZkErrorCode.CONNECTION_LOSS, '/brokers/topics/t/partitions/0/state');
    return this.version;
  }

  async getPartitionState(): Promise<{ state: PartitionState; zkVersion: number } | null> {
    this.reads++;
    if (this.readFailures-- > 0) throw new ZkError(ZkErrorCode.CONNECTION_LOSS);
    return { state: { ...this.state }, zkVersion: this.version };
  }

  async createIsrChangeNotification(partitions: { topic: string; partition: number }[]): Promise<string> {
    this.notifications.push(partitions);
    return 'isr_change_0000000000';
  }
}

const write = (isr: number[], expectedZkVersion = 7): IsrWrite => ({ topic: 't', partition: 0, leader: 1, leaderEpoch: 5, controllerEpoch: 1, isr, expectedZkVersion, change: 'expand' });

const managers: IsrManager[] = [];
afterEach(() => {
  for (const m of managers.splice(0)) m.shutdown();
});

function manager(zk: FakeZk): IsrManager {
  const m = new IsrManager(zk, silentLogger(), 60_000, 1);
  managers.push(m);
  return m;
}

describe('IsrManager: the outcome of an ISR write is known before the leader acts on it', () => {
  it('a conditional write that succeeds is committed at its new zkVersion and announced', async () => {
    const zk = new FakeZk();
    const m = manager(zk);
    expect(await m.writeIsr(write([1, 2, 3]))).toEqual({ outcome: 'committed', zkVersion: 8 });
    await m.flush();
    expect(zk.notifications).toEqual([[{ topic: 't', partition: 0 }]]);
  });

  it('a connection loss after the write was applied reads the znode back: committed', async () => {
    const zk = new FakeZk();
    zk.writes = ['lost'];
    zk.readFailures = 2; // ZooKeeper is not reachable yet: it retries reading
    expect(await manager(zk).writeIsr(write([1, 2, 3]))).toEqual({ outcome: 'committed', zkVersion: 8 });
    expect(zk.reads).toBe(3);
  });

  it('a timeout before the write was applied reads the znode back: not applied (same version)', async () => {
    const zk = new FakeZk();
    zk.writes = ['timeout'];
    expect(await manager(zk).writeIsr(write([1, 2, 3]))).toEqual({ outcome: 'notApplied' });
  });

  it('a stale zkVersion with a znode someone else changed is superseded (wait for the controller)', async () => {
    const zk = new FakeZk();
    zk.state = { controllerEpoch: 2, leader: 1, leaderEpoch: 6, isr: [1] };
    zk.version = 9;
    expect(await manager(zk).writeIsr(write([1, 2, 3]))).toEqual({ outcome: 'superseded' });
  });

  it('a stale zkVersion whose znode already says what we meant is committed (Kafka`s checkLeaderAndIsrZkData)', async () => {
    const zk = new FakeZk();
    zk.state = { controllerEpoch: 1, leader: 1, leaderEpoch: 5, isr: [3, 2, 1] };
    zk.version = 9;
    expect(await manager(zk).writeIsr(write([1, 2, 3]))).toEqual({ outcome: 'committed', zkVersion: 9 });
  });

  it('stays unresolved at shutdown if the znode cannot be read', async () => {
    const zk = new FakeZk();
    zk.writes = ['lost'];
    zk.readFailures = Number.MAX_SAFE_INTEGER;
    const m = manager(zk);
    const result = m.writeIsr(write([1, 2, 3]));
    while (zk.reads < 2) await new Promise((r) => setImmediate(r));
    m.shutdown();
    expect(await result).toEqual({ outcome: 'unresolved' });
  });
});
