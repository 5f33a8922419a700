import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { DeferredIsrWriter } from '../../test/fakes/deferred-isr-writer.js';
import { batchOf, InMemoryLog, leaderBatch } from '../../test/fakes/in-memory-log.js';
import { Partition } from './partition.js';

const LAG_MS = 10_000;

/** Broker 1 leads t-0 (replicas 1, 2, 3) in leader epoch 5 with the given ISR; a clock and ZooKeeper under test control. */
function leader(isr: number[], records = 10, isBrokerAlive?: (id: number) => boolean) {
  const clock = { now: 1_000_000 };
  const zk = new DeferredIsrWriter();
  const changes: string[] = [];
  const p = new Partition<InMemoryLog>('t', 0, { localBrokerId: 1, replicaLagTimeMaxMs: LAG_MS, isrWriter: zk, time: () => clock.now, onStateChange: (k) => changes.push(k), ...(isBrokerAlive ? { isBrokerAlive } : {}) });
  const log = new InMemoryLog('t', 0);
  p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 5, isr, zkVersion: 7, replicas: [1, 2, 3] }, log);
  if (records > 0) p.appendRecordsToLeader(batchOf(records), 1, 1);
  const fetch = (id: number, fetchOffset: number, currentLeaderEpoch = 5) => p.updateFollowerFetchState(id, { fetchOffset, currentLeaderEpoch, logStartOffset: 0 }, clock.now);
  return { p, log, zk, clock, changes, fetch };
}

describe('Partition: ISR expansion and the high watermark (KIP-497 maximal ISR)', () => {
  it('a caught-up follower that is not registered (its ZooKeeper session expired) does not join the ISR until it is', () => {
    const alive = new Set([1, 2]);
    const { zk, fetch } = leader([1, 2], 10, (id) => alive.has(id));
    fetch(3, 10);
    expect(zk.pending).toHaveLength(0);
    alive.add(3);
    fetch(3, 10);
    expect(zk.only().write).toMatchObject({ isr: [1, 2, 3], change: 'expand' });
  });

  it('while an expansion is being written, the HW waits for the joining follower, even after it stops fetching', async () => {
    const { p, zk, clock, fetch } = leader([1, 2]);
    fetch(2, 10);
    expect(p.highWatermark).toBe(10);
    fetch(3, 10); // 3 caught up: it joins, and the ZooKeeper write hangs
    expect(zk.only().write).toMatchObject({ isr: [1, 2, 3], change: 'expand', expectedZkVersion: 7, leaderEpoch: 5 });
    expect(p.isr).toEqual([1, 2]);
    expect(p.maximalIsr).toEqual([1, 2, 3]);
    p.appendRecordsToLeader(batchOf(5), -1, 2);
    // Long past replica.lag.time.max.ms, broker 3 silent: only the maximal ISR still holds the HW for it. If the
    // write was applied, the controller may elect 3, so offsets 10..14 must not be acknowledged yet.
    clock.now += 3 * LAG_MS;
    fetch(2, 15);
    expect(p.highWatermark).toBe(10);
    expect(p.checkEnoughReplicasReachOffset(15, 2).done).toBe(false);
    await zk.only().answer({ outcome: 'committed', zkVersion: 8 });
    expect([p.isr, p.zkVersion, p.highWatermark]).toEqual([[1, 2, 3], 8, 10]);
  });

  it('an ISR write with an unknown outcome (a timeout, then a changed znode) stays pending until the next LeaderAndIsr', async () => {
    const { p, zk, clock, fetch } = leader([1, 2]);
    fetch(2, 10);
    fetch(3, 10);
    p.appendRecordsToLeader(batchOf(5), -1, 2);
    clock.now += 3 * LAG_MS;
    fetch(2, 15);
    await zk.only().answer({ outcome: 'superseded' });
    expect(p.isrState.kind).toBe('pendingExpand');
    fetch(2, 15);
    expect(p.highWatermark).toBe(10);
    // No second ISR change starts while one is unresolved.
    expect(p.maybeShrinkIsr(clock.now)).toBe(false);
    expect(zk.pending).toHaveLength(0);
    // The controller's LeaderAndIsr says what ZooKeeper holds: the ISR without 3.
    p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 6, isr: [1, 2], zkVersion: 9, replicas: [1, 2, 3] }, p.log!);
    expect(p.isrState).toEqual({ kind: 'committed', isr: [1, 2] });
    expect(p.highWatermark).toBe(15);
  });

  it('a write that surely failed (the znode is unchanged) reverts to the committed ISR and releases the HW', async () => {
    const { p, zk, clock, fetch } = leader([1, 2]);
    fetch(2, 10);
    fetch(3, 10);
    p.appendRecordsToLeader(batchOf(5), -1, 2);
    clock.now += 3 * LAG_MS;
    fetch(2, 15);
    expect(p.highWatermark).toBe(10);
    await zk.only().answer({ outcome: 'notApplied' });
    expect(p.isrState).toEqual({ kind: 'committed', isr: [1, 2] });
    expect(p.highWatermark).toBe(15);
  });

  it('a writer failure keeps the change pending (the outcome is unknown)', async () => {
    const { p, zk, fetch } = leader([1, 2]);
    fetch(2, 10);
    fetch(3, 10);
    await zk.only().fail(new Error('boom'));
    expect(p.maximalIsr).toEqual([1, 2, 3]);
  });

  it('an answer that arrives after a LeaderAndIsr replaced the state is ignored', async () => {
    const { p, zk, fetch } = leader([1, 2]);
    fetch(2, 10);
    fetch(3, 10);
    const inFlight = zk.only();
    p.makeLeader({ controllerEpoch: 2, leader: 1, leaderEpoch: 6, isr: [1, 2], zkVersion: 12, replicas: [1, 2, 3] }, p.log!);
    await inFlight.answer({ outcome: 'committed', zkVersion: 8 });
    expect([p.isr, p.zkVersion, p.leaderEpoch]).toEqual([[1, 2], 12, 6]);
  });

  it('a follower must reach the start offset of the leader epoch before it joins, not only the HW', () => {
    const { p, zk, fetch } = leader([1, 2], 0);
    p.appendRecordsToLeader(batchOf(4), 1, 1);
    fetch(2, 2);
    expect(p.highWatermark).toBe(2);
    // Leader epoch 6 starts at 4, this broker's LEO when it took it.
    p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 6, isr: [1, 2], zkVersion: 8, replicas: [1, 2, 3] }, p.log!);
    p.updateFollowerFetchState(3, { fetchOffset: 3, currentLeaderEpoch: 6, logStartOffset: 0 });
    expect(zk.pending).toHaveLength(0);
    p.updateFollowerFetchState(3, { fetchOffset: 4, currentLeaderEpoch: 6, logStartOffset: 0 });
    expect(zk.only().write.isr).toEqual([1, 2, 3]);
  });
});

describe('Partition: ISR shrink', () => {
  it('members being removed hold the HW until ZooKeeper has the smaller ISR', async () => {
    const { p, zk, clock, fetch } = leader([1, 2, 3]);
    fetch(2, 10);
    fetch(3, 10);
    expect(p.highWatermark).toBe(10);
    p.appendRecordsToLeader(batchOf(5), -1, 2);
    clock.now += LAG_MS + 1;
    fetch(2, 15);
    expect(p.maybeShrinkIsr(clock.now)).toBe(true);
    expect(zk.only().write).toMatchObject({ isr: [1, 2], change: 'shrink' });
    expect(p.maximalIsr).toEqual([1, 2, 3]);
    fetch(2, 15);
    expect(p.highWatermark).toBe(10);
    await zk.only().answer({ outcome: 'committed', zkVersion: 8 });
    expect([p.isr, p.highWatermark]).toEqual([[1, 2], 15]);
  });

  it('acks=all appends check min.insync.replicas against the committed ISR, completions against the maximal one', async () => {
    const { p, zk, fetch } = leader([1], 0);
    expect(() => p.appendRecordsToLeader(batchOf(1), -1, 2)).toThrow(expect.objectContaining({ code: ErrorCode.NOT_ENOUGH_REPLICAS }));
    fetch(2, 0);
    expect(p.maximalIsr).toEqual([1, 2]);
    expect(() => p.appendRecordsToLeader(batchOf(1), -1, 2)).toThrow(expect.objectContaining({ code: ErrorCode.NOT_ENOUGH_REPLICAS }));
    await zk.only().answer({ outcome: 'committed', zkVersion: 8 });
    p.appendRecordsToLeader(batchOf(1), -1, 2);
    fetch(2, 1);
    expect(p.checkEnoughReplicasReachOffset(1, 2)).toEqual({ done: true, errorCode: ErrorCode.NONE });
  });
});

describe('Partition: follower fetch accounting', () => {
  it('a fetch from a fenced leader epoch neither moves the HW nor joins the ISR', () => {
    const { p, zk, fetch } = leader([1, 2]);
    expect(fetch(2, 10, 4)).toBe(false);
    expect(fetch(3, 10, 4)).toBe(false);
    expect(p.highWatermark).toBe(0);
    expect(p.remoteReplicas.get(2)!.logEndOffset).toBe(-1);
    expect(zk.pending).toHaveLength(0);
    expect(fetch(2, 10, 5)).toBe(true);
    expect(p.highWatermark).toBe(10);
  });

  it('a fetch offset past the LEO (records this leader never wrote) or below the log start is not counted', () => {
    const { p, zk, fetch } = leader([1, 2]);
    expect(fetch(2, 12)).toBe(false);
    expect(fetch(3, 11)).toBe(false);
    expect([p.highWatermark, p.remoteReplicas.get(2)!.logEndOffset, zk.pending.length]).toEqual([0, -1, 0]);
    fetch(2, 10);
    p.log!.maybeIncrementLogStartOffset(6);
    expect(fetch(2, 5)).toBe(false);
    expect(p.remoteReplicas.get(2)!.logEndOffset).toBe(10);
  });

  it('a fetch of a replica that is not assigned, or sent to a broker that is no longer leader, counts for nothing', () => {
    const { p, log, fetch } = leader([1, 2]);
    expect(fetch(4, 10)).toBe(false);
    p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 6, isr: [1, 2], zkVersion: 8, replicas: [1, 2, 3] }, log);
    expect(fetch(2, 10, 6)).toBe(false);
    expect(p.highWatermark).toBe(0);
  });

  it('the HW never moves back and never passes the LEO', () => {
    const { p, fetch } = leader([1, 2]);
    fetch(2, 10);
    expect(p.highWatermark).toBe(10);
    fetch(2, 4);
    expect(p.highWatermark).toBe(10);
  });
});

describe('Partition: DeleteRecords on the leader', () => {
  it('raises the log start up to the HW (-1 = the HW), never above it, and only while leading', () => {
    const { p, log, fetch } = leader([1, 2]);
    fetch(2, 6);
    expect(p.deleteRecordsOnLeader(4)).toEqual({ requestedOffset: 4, logStartOffsetMoved: true });
    expect(p.deleteRecordsOnLeader(2)).toEqual({ requestedOffset: 2, logStartOffsetMoved: false });
    expect(() => p.deleteRecordsOnLeader(7)).toThrow(expect.objectContaining({ code: ErrorCode.OFFSET_OUT_OF_RANGE }));
    expect(p.deleteRecordsOnLeader(-1)).toEqual({ requestedOffset: 6, logStartOffsetMoved: true });
    expect(log.logStartOffset).toBe(6);
    p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 6, isr: [1, 2], zkVersion: 8, replicas: [1, 2, 3] }, log);
    expect(() => p.deleteRecordsOnLeader(6)).toThrow(expect.objectContaining({ code: ErrorCode.NOT_LEADER_FOR_PARTITION }));
  });
});

describe('Partition: the follower log changes only while following the same leader epoch', () => {
  function follower() {
    const p = new Partition<InMemoryLog>('t', 0, { localBrokerId: 1, replicaLagTimeMaxMs: LAG_MS, isrWriter: new DeferredIsrWriter() });
    const log = new InMemoryLog('t', 0);
    p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 5, isr: [1, 2], zkVersion: 7, replicas: [1, 2] }, log);
    p.appendRecordsAsFollower(leaderBatch(0, 3, 5), 3, 0, { leader: 2, leaderEpoch: 5 });
    p.appendRecordsAsFollower(leaderBatch(3, 7, 5), 10, 0, { leader: 2, leaderEpoch: 5 });
    return { p, log };
  }

  it('after promotion, truncation and follower appends from the old leader epoch are refused', () => {
    const { p, log } = follower();
    expect([log.logEndOffset, log.highWatermark]).toEqual([10, 10]);
    p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 6, isr: [1], zkVersion: 8, replicas: [1, 2] }, log);
    expect(p.truncateTo(3, { leader: 2, leaderEpoch: 5 })).toBe(false);
    expect(p.truncateFullyAndStartAt(20, { leader: 2, leaderEpoch: 5 })).toBe(false);
    expect(p.appendRecordsAsFollower(leaderBatch(10, 1, 5), 11, 0, { leader: 2, leaderEpoch: 5 })).toBeNull();
    expect([log.logEndOffset, log.truncations]).toEqual([10, []]);
  });

  it('a newer leader epoch of the same leader also refuses answers about the old one', () => {
    const { p, log } = follower();
    p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 6, isr: [1, 2], zkVersion: 8, replicas: [1, 2] }, log);
    expect(p.truncateTo(3, { leader: 2, leaderEpoch: 5 })).toBe(false);
    expect(p.truncateTo(3, { leader: 2, leaderEpoch: 6 })).toBe(true);
    expect(log.logEndOffset).toBe(3);
  });

  it('takes the leader HW only up to its own LEO, and follows the leader log start', () => {
    const { p, log } = follower();
    expect(p.appendRecordsAsFollower(leaderBatch(10, 2, 5), 20, 4, { leader: 2, leaderEpoch: 5 })).toEqual({ logStartOffsetMoved: true });
    expect([log.highWatermark, log.logStartOffset]).toEqual([12, 4]);
  });
});
