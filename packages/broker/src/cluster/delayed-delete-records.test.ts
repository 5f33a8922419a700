import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, silentLogger } from '@gregor/common';
import { CompressionType, encodeRecordBatch } from '@gregor/protocol';
import { DEFAULT_LOG_CONFIG, PartitionLog } from '@gregor/storage';
import { DelayedOperationPurgatory } from '../purgatory/delayed-operation.js';
import { DelayedDeleteRecords, type DeleteRecordsPartitionStatus } from './delayed-delete-records.js';
import { Partition } from './partition.js';

const dirs: string[] = [];
const logs: PartitionLog[] = [];
afterEach(() => {
  for (const l of logs.splice(0)) l.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Broker 1 leads t-0 with followers 2 and 3; ten records, all replicated (HW 10). */
function leader(): Partition {
  const dir = mkdtempSync(join(tmpdir(), 'gregor-ddr-'));
  dirs.push(dir);
  const log = new PartitionLog({ dir: join(dir, 't-0'), topic: 't', partition: 0, config: { ...DEFAULT_LOG_CONFIG }, logger: silentLogger(), hadCleanShutdown: true });
  logs.push(log);
  const records = Array.from({ length: 10 }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`), headers: [], timestamp: Date.now() }));
  log.appendAsLeader(encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: Date.now(), records }), 0);
  const p = new Partition('t', 0, { localBrokerId: 1, replicaLagTimeMaxMs: 30_000, isrWriter: { writeIsr: () => new Promise(() => {}) } });
  p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 0, isr: [1, 2, 3], zkVersion: 0, replicas: [1, 2, 3] }, log, Date.now());
  for (const id of [2, 3]) p.updateFollowerFetchState(id, { fetchOffset: 10, currentLeaderEpoch: 0, logStartOffset: 0 });
  p.maybeIncrementLeaderHighWatermark();
  expect(p.highWatermark).toBe(10);
  return p;
}

function waitingDelete(p: Partition, offset: number, timeoutMs: number, alive: (id: number) => boolean) {
  p.log!.maybeIncrementLogStartOffset(offset);
  const status: DeleteRecordsPartitionStatus = { topic: 't', partition: 0, requiredOffset: offset, lowWatermark: p.lowWatermarkIfLeader(alive), errorCode: 0, acksPending: true };
  let answer: DeleteRecordsPartitionStatus[] | null = null;
  const op = new DelayedDeleteRecords(timeoutMs, [status], () => p, alive, (s) => (answer = s));
  const purgatory = new DelayedOperationPurgatory<DelayedDeleteRecords>('DeleteRecords');
  purgatory.tryCompleteElseWatch(op, [p.key]);
  return { purgatory, answer: () => answer };
}

describe('DeleteRecords low watermark', () => {
  it('waits until every live follower reports the new log start in its fetch', () => {
    const p = leader();
    const { purgatory, answer } = waitingDelete(p, 6, 10_000, () => true);
    expect(p.logStartOffset).toBe(6);
    expect(p.lowWatermarkIfLeader(() => true)).toBe(0);
    p.updateFollowerFetchState(2, { fetchOffset: 10, currentLeaderEpoch: 0, logStartOffset: 6 });
    purgatory.checkAndComplete(p.key);
    expect(answer()).toBeNull();
    // A consumer-style fetch (no log start, -1) changes nothing.
    p.updateFollowerFetchState(3, { fetchOffset: 10, currentLeaderEpoch: 0, logStartOffset: -1 });
    purgatory.checkAndComplete(p.key);
    expect(answer()).toBeNull();
    p.updateFollowerFetchState(3, { fetchOffset: 10, currentLeaderEpoch: 0, logStartOffset: 6 });
    purgatory.checkAndComplete(p.key);
    expect(answer()).toEqual([{ topic: 't', partition: 0, requiredOffset: 6, lowWatermark: 6, errorCode: ErrorCode.NONE, acksPending: false }]);
  });

  it('ignores replicas on dead brokers, and a follower that has not fetched holds it back as -1', () => {
    const p = leader();
    expect(p.lowWatermarkIfLeader((id) => id !== 2 && id !== 3)).toBe(0);
    p.log!.maybeIncrementLogStartOffset(4);
    expect(p.lowWatermarkIfLeader((id) => id === 1)).toBe(4);
    // Re-elected from follower: the leader knows nothing of the followers until they fetch.
    p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 1, isr: [1, 2, 3], zkVersion: 1, replicas: [1, 2, 3] }, p.log!);
    p.makeLeader({ controllerEpoch: 1, leader: 1, leaderEpoch: 2, isr: [1, 2, 3], zkVersion: 2, replicas: [1, 2, 3] }, p.log!, Date.now());
    expect(p.lowWatermarkIfLeader(() => true)).toBe(-1);
  });

  it('answers REQUEST_TIMED_OUT with the last low watermark, and NOT_LEADER when leadership moves', async () => {
    const p = leader();
    const slow = waitingDelete(p, 5, 50, () => true);
    await new Promise((r) => setTimeout(r, 120));
    expect(slow.answer()).toEqual([{ topic: 't', partition: 0, requiredOffset: 5, lowWatermark: 0, errorCode: ErrorCode.REQUEST_TIMED_OUT, acksPending: false }]);
    const moved = waitingDelete(p, 7, 10_000, () => true);
    p.makeFollower({ controllerEpoch: 1, leader: 2, leaderEpoch: 1, isr: [1, 2, 3], zkVersion: 1, replicas: [1, 2, 3] }, p.log!);
    moved.purgatory.checkAndComplete(p.key);
    expect(moved.answer()![0]).toMatchObject({ errorCode: ErrorCode.NOT_LEADER_FOR_PARTITION, lowWatermark: -1 });
  });
});
