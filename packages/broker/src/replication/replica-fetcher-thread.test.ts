import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Fetch, ListOffsets, OffsetsForLeaderEpoch, type FetchResponse, type ListOffsetsResponse, type OffsetsForLeaderEpochResponse } from '@gregor/protocol';
import { DeferredIsrWriter } from '../../test/fakes/deferred-isr-writer.js';
import { batchOf, InMemoryLog } from '../../test/fakes/in-memory-log.js';
import { ScriptedLeader } from '../../test/fakes/scripted-leader.js';
import { Partition } from '../cluster/partition.js';
import { ReplicaFetcherThread } from './replica-fetcher-thread.js';

const fetchers: ReplicaFetcherThread[] = [];
afterEach(async () => {
  for (const f of fetchers.splice(0)) await f.shutdown();
});

/**
 * Broker 1 led t-0 in epoch 5 and wrote offsets 0..14 (batches 0-9, 10-11, 12-14); broker 2 now leads epoch 6 and
 * broker 1 follows it. Broker 2's answers come from a ScriptedLeader, one at a time, when the test gives them.
 */
function follower() {
  const leader = new ScriptedLeader();
  const p = new Partition<InMemoryLog>('t', 0, { localBrokerId: 1, replicaLagTimeMaxMs: 30_000, isrWriter: new DeferredIsrWriter() });
  const log = new InMemoryLog('t', 0);
  p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 5, isr: [1, 2], zkVersion: 0, replicas: [1, 2] }, log);
  for (const n of [10, 2, 3]) p.appendRecordsToLeader(batchOf(n), 1, 1);
  p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 6, isr: [1, 2], zkVersion: 1, replicas: [1, 2] }, log);
  const failed: number[] = [];
  const fetcher = new ReplicaFetcherThread(
    {
      name: 'ReplicaFetcherThread-0-2',
      source: { brokerId: 2, host: 'broker-2', port: 9092 },
      clientId: 'broker-1-fetcher-0',
      connect: leader.connect,
      replicaId: 1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      partitionMaxBytes: 1 << 20,
      backoffMs: 5,
      requestTimeoutMs: 1000,
    },
    {
      partition: (topic, partition) => (topic === 't' && partition === 0 ? p : undefined),
      onAppended: () => {},
      onLogStartOffsetIncremented: () => {},
      onPartitionsFailed: (_states, code) => failed.push(code),
    },
  );
  fetchers.push(fetcher);
  fetcher.addPartitions([{ topic: 't', partition: 0, fetchOffset: log.logEndOffset, currentLeaderEpoch: 6, truncating: true }]);
  fetcher.start();
  /** What the controller's LeaderAndIsr does to this broker (ReplicaManager.becomeLeaderOrFollower). */
  const promote = () => {
    p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 7, isr: [1], zkVersion: 2, replicas: [1, 2] }, log);
    fetcher.removePartitions([{ topic: 't', partition: 0 }]);
    p.appendRecordsToLeader(batchOf(3), 1, 1); // acknowledged by the new leader: offsets 15..17
  };
  return { leader, p, log, fetcher, failed, promote };
}

const epochAnswer = (endOffset: number, leaderEpoch = 5): OffsetsForLeaderEpochResponse => ({
  topics: [{ topic: 't', partitions: [{ errorCode: ErrorCode.NONE, partition: 0, leaderEpoch, endOffset }] }],
});
const offsetAnswer = (offset: number): ListOffsetsResponse => ({ topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE, timestamp: -1, offset }] }] });
const fetchAnswer = (errorCode: number): FetchResponse => ({
  throttleTimeMs: 0,
  errorCode: 0,
  sessionId: 0,
  responses: [{ topic: 't', partitionResponses: [{ partition: 0, errorCode, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, recordSet: null }] }],
});

describe('ReplicaFetcherThread: truncation after promotion', () => {
  it('an OffsetsForLeaderEpoch answer that arrives after this broker became leader cuts nothing', async () => {
    const { leader, log, promote } = follower();
    const req = await leader.next(OffsetsForLeaderEpoch);
    expect(req.request.topics[0]!.partitions[0]).toMatchObject({ partition: 0, currentLeaderEpoch: 6, leaderEpoch: 5 });
    promote();
    await req.answer(epochAnswer(10));
    expect([log.logEndOffset, log.truncations]).toEqual([18, []]);
  });

  it('an answer about an older epoch of the same leader is dropped; the current epoch`s answer is used', async () => {
    const { leader, p, log, fetcher } = follower();
    const stale = await leader.next(OffsetsForLeaderEpoch);
    // The controller bumps the epoch (broker 2 stays leader): the fetcher restarts truncation for epoch 7.
    p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 7, isr: [1, 2], zkVersion: 2, replicas: [1, 2] }, log);
    fetcher.removePartitions([{ topic: 't', partition: 0 }]);
    fetcher.addPartitions([{ topic: 't', partition: 0, fetchOffset: log.logEndOffset, currentLeaderEpoch: 7, truncating: true }]);
    await stale.answer(epochAnswer(3));
    expect(log.truncations).toEqual([]);
    const current = await leader.next(OffsetsForLeaderEpoch);
    expect(current.request.topics[0]!.partitions[0]!.currentLeaderEpoch).toBe(7);
    await current.answer(epochAnswer(12));
    expect([log.logEndOffset, log.truncations]).toEqual([12, [{ kind: 'to', offset: 12 }]]);
    expect((await leader.next(Fetch)).request.topics[0]!.partitions[0]).toMatchObject({ fetchOffset: 12, currentLeaderEpoch: 7 });
  });
});

describe('ReplicaFetcherThread: OFFSET_OUT_OF_RANGE (Kafka`s fetchOffsetAndTruncate)', () => {
  /** Truncation found nothing to cut; the first Fetch at 15 is answered OFFSET_OUT_OF_RANGE. */
  async function outOfRange(f: ReturnType<typeof follower>) {
    await (await f.leader.next(OffsetsForLeaderEpoch)).answer(epochAnswer(15));
    const fetch = await f.leader.next(Fetch);
    expect(fetch.request.topics[0]!.partitions[0]!.fetchOffset).toBe(15);
    await fetch.answer(fetchAnswer(ErrorCode.OFFSET_OUT_OF_RANGE));
    return f.leader.next(ListOffsets);
  }

  it('keeps the log when the leader log start is not above our LEO, and fetches again from the LEO', async () => {
    const f = follower();
    const latest = await outOfRange(f);
    expect(latest.request.topics[0]!.partitions[0]!.timestamp).toBe(-1);
    await latest.answer(offsetAnswer(20));
    const earliest = await f.leader.next(ListOffsets);
    expect(earliest.request.topics[0]!.partitions[0]!.timestamp).toBe(-2);
    await earliest.answer(offsetAnswer(12));
    expect([f.log.logEndOffset, f.log.truncations]).toEqual([15, []]);
    expect((await f.leader.next(Fetch)).request.topics[0]!.partitions[0]!.fetchOffset).toBe(15);
  });

  it('starts the log over at the leader log start only when that is above our LEO', async () => {
    const f = follower();
    await (await outOfRange(f)).answer(offsetAnswer(40));
    await (await f.leader.next(ListOffsets)).answer(offsetAnswer(30));
    expect([f.log.logEndOffset, f.log.truncations]).toEqual([30, [{ kind: 'fully', offset: 30 }]]);
    expect((await f.leader.next(Fetch)).request.topics[0]!.partitions[0]!.fetchOffset).toBe(30);
  });

  it('a leader behind us (unclean election) truncates us to its LEO', async () => {
    const f = follower();
    await (await outOfRange(f)).answer(offsetAnswer(12));
    expect([f.log.logEndOffset, f.log.truncations]).toEqual([12, [{ kind: 'to', offset: 12 }]]);
  });

  it('a ListOffsets answer that arrives after this broker became leader changes nothing', async () => {
    const f = follower();
    const latest = await outOfRange(f);
    f.promote();
    await latest.answer(offsetAnswer(10));
    expect([f.log.logEndOffset, f.log.truncations]).toEqual([18, []]);
  });
});
