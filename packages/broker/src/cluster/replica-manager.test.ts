import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, silentLogger } from '@gregor/common';
import { OffsetsForLeaderEpoch } from '@gregor/protocol';
import { DeferredIsrWriter } from '../../test/fakes/deferred-isr-writer.js';
import { batchOf, InMemoryLog, InMemoryLogManager } from '../../test/fakes/in-memory-log.js';
import { ScriptedLeader } from '../../test/fakes/scripted-leader.js';
import type { ProducePartitionStatus } from './delayed-produce.js';
import { ReplicaManager, type PartitionLeadershipRequest } from './replica-manager.js';

const managers: ReplicaManager<InMemoryLog, InMemoryLogManager>[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.shutdown();
});

/** Broker 1's ReplicaManager over in-memory logs, ZooKeeper ISR writes and leaders under test control. */
function broker() {
  const zk = new DeferredIsrWriter();
  const leader2 = new ScriptedLeader();
  const logs = new InMemoryLogManager();
  const rm = new ReplicaManager<InMemoryLog, InMemoryLogManager>({
    brokerId: 1,
    logManager: logs,
    logger: silentLogger(),
    minInsyncReplicas: () => 2,
    topicLogConfig: () => ({}),
    messageMaxBytes: () => 1 << 20,
    fetcher: { brokerId: 1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, backoffMs: 5, requestTimeoutMs: 1000, connect: leader2.connect },
    replicaLagTimeMaxMs: 30_000,
    leaderEndpoint: (id) => ({ brokerId: id, host: `broker-${id}`, port: 9092 }),
    isrManager: zk,
  });
  managers.push(rm);
  const state = (leader: number, leaderEpoch: number, isr: number[]): PartitionLeadershipRequest => ({
    topic: 't',
    partition: 0,
    controllerEpoch: 1,
    leader,
    leaderEpoch,
    isr,
    zkVersion: leaderEpoch,
    replicas: [1, 2, 3],
    isNew: false,
  });
  const fetch = (replicaId: number, fetchOffset: number, currentLeaderEpoch: number) =>
    rm.fetchMessages({ replicaId, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, partitions: [{ topic: 't', partition: 0, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch, logStartOffset: 0 }] });
  const produce = (count: number) => {
    let answer: ProducePartitionStatus[] | null = null;
    void rm.appendRecords(30_000, -1, [{ topic: 't', partition: 0, records: batchOf(count) }]).then((a) => (answer = a));
    return () => answer;
  };
  const settle = () => new Promise((r) => setImmediate(r));
  return { rm, zk, leader2, logs, state, fetch, produce, settle };
}

describe('ReplicaManager: follower fetch accounting', () => {
  it('a fenced follower, or one fetching past the LEO, gets an error and moves neither the HW nor acks=all', async () => {
    const b = broker();
    b.rm.becomeLeaderOrFollower(0, 1, [b.state(1, 5, [1, 2, 3])]);
    const acked = b.produce(5);
    const fenced = await b.fetch(2, 5, 4);
    expect(fenced[0]!.errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    const ahead = await b.fetch(3, 7, 5);
    expect(ahead[0]!.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    await b.settle();
    expect(b.rm.getPartition('t', 0)!.highWatermark).toBe(0);
    expect(b.rm.getPartition('t', 0)!.remoteReplicas.get(2)!.logEndOffset).toBe(-1);
    expect(acked()).toBeNull();
    await b.fetch(2, 5, 5);
    const last = await b.fetch(3, 5, 5);
    // The answer carries the HW this very fetch moved.
    expect(last[0]).toMatchObject({ errorCode: ErrorCode.NONE, highWatermark: 5 });
    await b.settle();
    expect(acked()).toEqual([expect.objectContaining({ errorCode: ErrorCode.NONE, baseOffset: 0, requiredOffset: 5 })]);
  });

  it('acks=all waits for a follower being added to the ISR until ZooKeeper answers (maximal ISR)', async () => {
    const b = broker();
    b.rm.becomeLeaderOrFollower(0, 1, [b.state(1, 5, [1, 2])]);
    await b.fetch(3, 0, 5); // 3 is at the HW (0): it joins, the write is in flight
    expect(b.zk.only().write.isr).toEqual([1, 2, 3]);
    const acked = b.produce(4);
    await b.fetch(2, 4, 5);
    await b.settle();
    expect([b.rm.getPartition('t', 0)!.highWatermark, acked()]).toEqual([0, null]);
    await b.zk.only().answer({ outcome: 'committed', zkVersion: 6 });
    await b.fetch(3, 4, 5);
    await b.settle();
    expect(b.rm.getPartition('t', 0)!.isr).toEqual([1, 2, 3]);
    expect(acked()).toEqual([expect.objectContaining({ errorCode: ErrorCode.NONE, requiredOffset: 4 })]);
  });
});

describe('ReplicaManager: LeaderAndIsr while a follower truncation is in flight', () => {
  it('a broker made leader keeps what it acknowledged when the old leader`s OffsetsForLeaderEpoch answer comes back', async () => {
    const b = broker();
    // Broker 1 led epoch 5 (offsets 0..9), then follows broker 2 in epoch 6.
    b.rm.becomeLeaderOrFollower(0, 1, [b.state(1, 5, [1, 2, 3])]);
    b.rm.appendRecords(30_000, 1, [{ topic: 't', partition: 0, records: batchOf(10) }]);
    b.rm.becomeLeaderOrFollower(0, 1, [b.state(2, 6, [1, 2, 3])]);
    const inFlight = await b.leader2.next(OffsetsForLeaderEpoch);
    // Broker 2 dies; the controller makes broker 1 leader in epoch 7, and a producer writes offsets 10..12.
    b.rm.becomeLeaderOrFollower(0, 1, [b.state(1, 7, [1, 3])]);
    const [status] = await b.rm.appendRecords(30_000, 1, [{ topic: 't', partition: 0, records: batchOf(3) }]);
    expect(status).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 10 });
    await inFlight.answer({ topics: [{ topic: 't', partitions: [{ errorCode: ErrorCode.NONE, partition: 0, leaderEpoch: 5, endOffset: 4 }] }] });
    const log = b.logs.getOrCreateLog('t', 0);
    expect([log.logEndOffset, log.truncations]).toEqual([13, []]);
  });
});

describe('ReplicaManager: the controller\'s requests apply in order (replicaStateChangeLock)', () => {
  it('a StopReplica arriving while a LeaderAndIsr still waits (creating logs) applies after it', async () => {
    const b = broker();
    const order: string[] = [];
    let releaseLogs!: () => void;
    const logsCreated = new Promise<void>((r) => (releaseLogs = r));
    const leaderAndIsr = b.rm.stateChange(async () => {
      order.push('LeaderAndIsr started');
      await logsCreated;
      b.rm.becomeLeaderOrFollower(0, 1, [b.state(1, 5, [1, 2, 3])]);
      order.push('LeaderAndIsr applied');
    });
    const stopReplica = b.rm.stateChange(() => {
      order.push('StopReplica');
      return b.rm.stopReplicas(1, true, [{ topic: 't', partition: 0 }]);
    });
    await b.settle();
    expect(order).toEqual(['LeaderAndIsr started']);
    releaseLogs();
    await Promise.all([leaderAndIsr, stopReplica]);
    expect(order).toEqual(['LeaderAndIsr started', 'LeaderAndIsr applied', 'StopReplica']);
    expect(b.rm.getPartition('t', 0)).toBeUndefined(); // deleted last, as the controller sent it
  });

  it('a failed request does not block the ones after it', async () => {
    const b = broker();
    await expect(b.rm.stateChange(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(b.rm.stateChange(() => 42)).resolves.toBe(42);
  });
});
