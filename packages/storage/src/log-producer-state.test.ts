import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, GregorError } from '@gregor/common';
import { PartitionLog, type PartitionLogOptions } from './log.js';
import type { LogConfig } from './log-config.js';
import { batchBaseOffsets, producerBatch, simpleBatch, tempDir, testConfig, testLogger } from './test-batches.js';

/** The idempotent producer's state inside a partition log: leader checks, replication, snapshots, truncation. */

let dir: { path: string; cleanup(): void };
const opened: PartitionLog[] = [];
beforeEach(() => {
  dir = tempDir('gregor-log-producers-');
});
afterEach(() => {
  for (const log of opened.splice(0)) log.close();
  dir.cleanup();
});

function openLog(name = 'orders-0', config: Partial<LogConfig> = {}, extra: Partial<PartitionLogOptions> = {}): PartitionLog {
  const log = new PartitionLog({ dir: join(dir.path, name), topic: 'orders', partition: 0, config: testConfig(config), logger: testLogger(), hadCleanShutdown: true, ...extra });
  opened.push(log);
  return log;
}

function codeOf(fn: () => unknown): number | string {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof GregorError ? err.code : String(err);
  }
}

const snapshots = (log: PartitionLog) => readdirSync(log.dir).filter((f) => f.endsWith('.snapshot')).sort();
const PID = 4000;

describe('PartitionLog with idempotent producers', () => {
  it('a retried batch gets its original offsets back and nothing is appended twice', () => {
    const log = openLog();
    expect(log.appendAsLeader(simpleBatch(2), 0).firstOffset).toBe(0);
    expect(log.appendAsLeader(producerBatch(PID, 0, 0, 3, 1_700_000_000_123), 0)).toMatchObject({ firstOffset: 2, lastOffset: 4, duplicate: false });
    expect(log.appendAsLeader(producerBatch(PID, 0, 3, 2), 0)).toMatchObject({ firstOffset: 5, lastOffset: 6 });
    const before = log.read(0, 1 << 20, 100, true).records;
    const retry = log.appendAsLeader(producerBatch(PID, 0, 0, 3, 1_700_000_000_123), 0);
    expect(retry).toEqual({ firstOffset: 2, lastOffset: 4, maxTimestamp: 1_700_000_000_123, logAppendTimeMs: 1_700_000_000_123, duplicate: true });
    expect(log.logEndOffset).toBe(7);
    expect(log.read(0, 1 << 20, 100, true).records).toEqual(before);
  });

  it('refuses gaps, old epochs, unknown producers and negative base sequences; a refused append writes nothing', () => {
    const log = openLog();
    log.appendAsLeader(producerBatch(PID, 3, 0, 2), 0);
    expect(codeOf(() => log.appendAsLeader(producerBatch(PID, 3, 5, 1), 0))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(codeOf(() => log.appendAsLeader(producerBatch(PID, 2, 2, 1), 0))).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(codeOf(() => log.appendAsLeader(producerBatch(PID + 1, 0, 7, 1), 0))).toBe(ErrorCode.UNKNOWN_PRODUCER_ID);
    expect(codeOf(() => log.appendAsLeader(producerBatch(PID + 1, 0, -1, 1), 0))).toBe(ErrorCode.INVALID_RECORD);
    expect(log.logEndOffset).toBe(2);
    expect(log.appendAsLeader(producerBatch(PID, 3, 2, 1), 0).firstOffset).toBe(2);
  });

  it('after a leader change the new leader (a former follower) answers a retried batch with the original offset', () => {
    const leader = openLog('leader-0');
    const follower = openLog('follower-0');
    leader.appendAsLeader(simpleBatch(1), 0);
    leader.appendAsLeader(producerBatch(PID, 0, 0, 4), 0);
    const original = leader.appendAsLeader(producerBatch(PID, 0, 4, 2), 0);
    expect(original.firstOffset).toBe(5);
    // the follower replicates the leader's bytes (offsets and producer fields as stored)
    follower.appendAsFollower(leader.read(0, 1 << 20, leader.logEndOffset, true).records);
    expect(follower.logEndOffset).toBe(7);
    // the leader dies before its answer reached the producer, which retries against the new leader
    const retried = follower.appendAsLeader(producerBatch(PID, 0, 4, 2), 1);
    expect(retried).toMatchObject({ firstOffset: 5, lastOffset: 6, duplicate: true });
    expect(follower.logEndOffset).toBe(7);
    expect(follower.appendAsLeader(producerBatch(PID, 0, 6, 1), 1).firstOffset).toBe(7);
    expect(codeOf(() => follower.appendAsLeader(producerBatch(PID, 0, 9, 1), 1))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  });

  it('takes snapshots at segment rolls and at close; after a clean restart the last batch still dedupes', () => {
    const log = openLog('orders-0', { segmentBytes: 400 });
    for (let seq = 0; seq < 12; seq++) log.appendAsLeader(producerBatch(PID, 0, seq, 1), 0);
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(2);
    expect(snapshots(log)).toEqual(bases.slice(1).map((b) => `${String(b).padStart(20, '0')}.snapshot`));
    log.flush();
    log.close();
    expect(snapshots(log).at(-1)).toBe('00000000000000000012.snapshot');
    const again = openLog('orders-0', { segmentBytes: 400 });
    expect(again.producerState.mapEndOffset).toBe(12);
    expect(again.appendAsLeader(producerBatch(PID, 0, 11, 1), 0)).toMatchObject({ firstOffset: 11, duplicate: true });
    expect(again.appendAsLeader(producerBatch(PID, 0, 12, 1), 0)).toMatchObject({ firstOffset: 12, duplicate: false });
  });

  it('after a crash, state is the last snapshot plus a replay of the log after it', () => {
    const log = openLog('live-0', { segmentBytes: 400 });
    for (let seq = 0; seq < 10; seq++) log.appendAsLeader(producerBatch(PID, 0, seq, 1), 0);
    log.appendAsLeader(producerBatch(PID + 1, 5, 0, 2), 0);
    log.flush();
    // the files as a kill -9 leaves them: no close, so no snapshot at LEO
    cpSync(log.dir, join(dir.path, 'crashed-0'), { recursive: true });
    const latest = snapshots(log).at(-1)!;
    expect(Number(latest.slice(0, 20))).toBeLessThan(log.logEndOffset);
    const crashed = openLog('crashed-0', { segmentBytes: 400 }, { hadCleanShutdown: false, recoveryPoint: 0 });
    expect(crashed.logEndOffset).toBe(12);
    expect(crashed.producerState.lastEntry(PID)!.lastSeq).toBe(9);
    expect(crashed.producerState.lastEntry(PID + 1)!.producerEpoch).toBe(5);
    expect(crashed.appendAsLeader(producerBatch(PID, 0, 9, 1), 0)).toMatchObject({ firstOffset: 9, duplicate: true });
    expect(crashed.appendAsLeader(producerBatch(PID + 1, 5, 0, 2), 0)).toMatchObject({ firstOffset: 10, duplicate: true });
    expect(snapshots(crashed).at(-1)).toBe('00000000000000000012.snapshot');
  });

  it('truncation rolls producer state back and deletes snapshots above the new end', () => {
    const log = openLog('orders-0', { segmentBytes: 400 });
    for (let seq = 0; seq < 12; seq++) log.appendAsLeader(producerBatch(PID, 0, seq, 1), 0);
    log.appendAsLeader(producerBatch(PID + 1, 0, 0, 1), 0); // offset 12: a producer known only above the cut
    expect(snapshots(log).map((f) => Number(f.slice(0, 20))).some((o) => o > 5)).toBe(true);
    log.truncateTo(5);
    expect(log.logEndOffset).toBe(5);
    expect(snapshots(log).map((f) => Number(f.slice(0, 20))).every((o) => o <= 5)).toBe(true);
    expect(log.producerState.lastEntry(PID)!.lastSeq).toBe(4);
    expect(log.producerState.lastEntry(PID + 1)).toBeUndefined();
    // seq 5 was truncated: its retry is a new append at the new end, not a duplicate
    expect(log.appendAsLeader(producerBatch(PID, 0, 5, 1), 1)).toMatchObject({ firstOffset: 5, duplicate: false });
    expect(log.appendAsLeader(producerBatch(PID, 0, 4, 1), 1)).toMatchObject({ firstOffset: 4, duplicate: true });
    log.truncateFullyAndStartAt(50);
    expect(log.producerState.isEmpty).toBe(true);
    expect(snapshots(log)).toEqual([]);
  });

  it('retention deletes snapshots below the new log start and forgets producers whose batches are gone', () => {
    const now = 1_700_000_100_000;
    const log = openLog('orders-0', { segmentBytes: 400, retentionMs: 1000 }, { time: () => now });
    // two old batches of 15 records, one segment each
    log.appendAsLeader(producerBatch(PID, 0, 0, 15, 1_700_000_000_000), 0);
    log.appendAsLeader(producerBatch(PID, 0, 15, 15, 1_700_000_000_000), 0);
    for (let seq = 0; seq < 8; seq++) log.appendAsLeader(producerBatch(PID + 1, 0, seq, 1, now), 0);
    log.updateHighWatermark(log.logEndOffset);
    const before = snapshots(log).map((f) => Number(f.slice(0, 20)));
    expect(log.deleteOldSegments(now)).toBeGreaterThan(0);
    const start = log.logStartOffset;
    expect(start).toBe(30); // the segments holding only the old producer's batches
    expect(before.some((o) => o < start)).toBe(true);
    expect(snapshots(log).map((f) => Number(f.slice(0, 20)))).toEqual(before.filter((o) => o >= start));
    expect(log.producerState.lastEntry(PID)).toBeUndefined();
    expect(log.producerState.lastEntry(PID + 1)!.lastSeq).toBe(7);
    expect(codeOf(() => log.appendAsLeader(producerBatch(PID, 0, 30, 1), 0))).toBe(ErrorCode.UNKNOWN_PRODUCER_ID);
  });

  it('expires producer ids idle for producer.id.expiration.ms', () => {
    const log = openLog('orders-0', {}, { producerIdExpirationMs: 60_000 });
    log.appendAsLeader(producerBatch(PID, 0, 0, 1, 1_700_000_000_000), 0);
    log.appendAsLeader(producerBatch(PID + 1, 0, 0, 1, 1_700_000_050_000), 0);
    expect(log.removeExpiredProducers(1_700_000_059_999)).toBe(0);
    expect(log.removeExpiredProducers(1_700_000_060_000)).toBe(1);
    expect([...log.producerState.activeProducers().keys()]).toEqual([PID + 1]);
    expect(codeOf(() => log.appendAsLeader(producerBatch(PID, 0, 1, 1), 0))).toBe(ErrorCode.UNKNOWN_PRODUCER_ID);
  });

  it('logs without idempotent producers get no replay and at most a few empty snapshots', () => {
    const log = openLog('orders-0', { segmentBytes: 400 });
    for (let i = 0; i < 8; i++) log.appendAsLeader(simpleBatch(1), 0);
    expect(log.producerState.isEmpty).toBe(true);
    log.truncateTo(3);
    expect(batchBaseOffsets(log.read(0, 1 << 20, 100, true).records)[0]).toBe(0);
    expect(log.producerState.mapEndOffset).toBe(3);
  });
});
