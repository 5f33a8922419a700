import { describe, expect, it } from 'vitest';
import { ErrorCode, silentLogger } from '@gregor/common';
import type { FetchPartitionData, FetchPartitionRequest } from '../cluster/replica-manager.js';
import { FetchManager, type FetchContext } from './fetch-manager.js';
import { FetchSessionCache } from './fetch-session-cache.js';

const req = (partition: number, fetchOffset = 0, topic = 't'): FetchPartitionRequest => ({
  topic,
  partition,
  fetchOffset,
  partitionMaxBytes: 1024,
  currentLeaderEpoch: -1,
  logStartOffset: -1,
});

interface Log {
  hw: number;
  logStart: number;
  error?: number;
  /** Records returned when fetching below the HW. */
  data?: boolean;
}

/** A stand-in for the replica manager's read: records when the fetch offset is below the HW. */
function read(ctx: FetchContext, logs: Map<string, Log>): FetchPartitionData[] {
  return ctx.partitions.map((r) => {
    const log = logs.get(`${r.topic}-${r.partition}`) ?? { hw: 0, logStart: 0 };
    if (log.error) return { topic: r.topic, partition: r.partition, errorCode: log.error, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, records: Buffer.alloc(0) };
    const records = r.fetchOffset < log.hw ? Buffer.alloc(10 * (log.hw - r.fetchOffset)) : Buffer.alloc(0);
    return { topic: r.topic, partition: r.partition, errorCode: 0, highWatermark: log.hw, lastStableOffset: log.hw, logStartOffset: log.logStart, records };
  });
}

const answered = (data: FetchPartitionData[]) => data.map((d) => `${d.topic}-${d.partition}`);

function setup(slots = 10) {
  let now = 1000;
  const manager = new FetchManager(new FetchSessionCache(slots), silentLogger(), () => now);
  const logs = new Map<string, Log>(Array.from({ length: 4 }, (_, i) => [`t-${i}`, { hw: 5, logStart: 0 }]));
  return { manager, logs, tick: (ms: number) => (now += ms) };
}

describe('FetchManager (KIP-227 contexts)', () => {
  it('(0, -1) is sessionless: every partition answered, session id 0, nothing cached', () => {
    const { manager, logs } = setup();
    const ctx = manager.newContext({ sessionId: 0, epoch: -1, partitions: [req(0, 5), req(1, 5)], forgotten: [], isFollower: false });
    expect(ctx.kind).toBe('sessionless');
    const res = ctx.respond(read(ctx, logs));
    expect(res).toMatchObject({ errorCode: 0, sessionId: 0 });
    expect(answered(res.partitions)).toEqual(['t-0', 't-1']);
    expect(manager.cache.size).toBe(0);
    expect(manager.stats.consumer.sessionless).toBe(1);
  });

  it('(0, 0) is a full fetch that creates a session expecting epoch 1; incremental responses carry only partitions with news', () => {
    const { manager, logs } = setup();
    const full = manager.newContext({ sessionId: 0, epoch: 0, partitions: [0, 1, 2, 3].map((p) => req(p, 5)), forgotten: [], isFollower: false });
    expect(full.kind).toBe('full');
    const first = full.respond(read(full, logs));
    expect(first.sessionId).toBeGreaterThan(0);
    expect(answered(first.partitions)).toEqual(['t-0', 't-1', 't-2', 't-3']); // a full response has them all
    const session = manager.cache.get(first.sessionId)!;
    expect(session.epoch).toBe(1);
    expect(session.privileged).toBe(false);

    // Nothing changed: the incremental fetch reads all four and answers none.
    const inc1 = manager.newContext({ sessionId: first.sessionId, epoch: 1, partitions: [], forgotten: [], isFollower: false });
    expect(inc1.kind).toBe('incremental');
    expect(inc1.partitions.map((p) => `${p.topic}-${p.partition}@${p.fetchOffset}`)).toEqual(['t-0@5', 't-1@5', 't-2@5', 't-3@5']);
    const r1 = inc1.respond(read(inc1, logs));
    expect(r1).toMatchObject({ errorCode: 0, sessionId: first.sessionId, partitions: [] });
    expect(session.epoch).toBe(2);

    // New records on t-1 (HW moves too), log start moves on t-2, t-3 fails.
    logs.set('t-1', { hw: 7, logStart: 0 });
    logs.set('t-2', { hw: 5, logStart: 3 });
    logs.set('t-3', { hw: 5, logStart: 0, error: ErrorCode.NOT_LEADER_FOR_PARTITION });
    const inc2 = manager.newContext({ sessionId: first.sessionId, epoch: 2, partitions: [], forgotten: [], isFollower: false });
    const r2 = inc2.respond(read(inc2, logs));
    expect(answered(r2.partitions)).toEqual(['t-1', 't-2', 't-3']);
    expect(r2.partitions[0]!.records.length).toBe(20);
    expect(session.partitions.get('t-3')!.highWatermark).toBe(-1); // the error reset the cached HW

    // The client moves t-1 to offset 7 (an update); t-3 is still failing and so still answered; t-2 is settled.
    const inc3 = manager.newContext({ sessionId: first.sessionId, epoch: 3, partitions: [req(1, 7)], forgotten: [], isFollower: false });
    const r3 = inc3.respond(read(inc3, logs));
    expect(answered(r3.partitions)).toEqual(['t-3']);

    // The error clears: t-3 is answered once more (its cached HW was -1), then no more.
    logs.set('t-3', { hw: 5, logStart: 0 });
    const inc4 = manager.newContext({ sessionId: first.sessionId, epoch: 4, partitions: [], forgotten: [], isFollower: false });
    expect(answered(inc4.respond(read(inc4, logs)).partitions)).toEqual(['t-3']);
    const inc5 = manager.newContext({ sessionId: first.sessionId, epoch: 5, partitions: [], forgotten: [], isFollower: false });
    expect(inc5.respond(read(inc5, logs)).partitions).toEqual([]);
    expect(manager.stats.consumer).toMatchObject({ full: 1, incremental: 5, sessionless: 0 });
  });

  it('an incremental request adds partitions and removes forgotten ones; forgetting the last closes the session', () => {
    const { manager, logs } = setup();
    const full = manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(0, 5)], forgotten: [], isFollower: true });
    const { sessionId } = full.respond(read(full, logs));
    expect(manager.cache.get(sessionId)!.privileged).toBe(true);
    const inc = manager.newContext({ sessionId, epoch: 1, partitions: [req(1, 0), req(0, 0, 'u')], forgotten: [], isFollower: true });
    expect(inc.partitions.map((p) => `${p.topic}-${p.partition}`)).toEqual(['t-0', 't-1', 'u-0']);
    // An added partition is new to the client: answered (HW unknown to it), with its records.
    expect(answered(inc.respond(read(inc, logs)).partitions)).toEqual(['t-1', 'u-0']);
    expect(manager.cache.totalPartitions).toBe(3);
    const inc2 = manager.newContext({ sessionId, epoch: 2, partitions: [], forgotten: [{ topic: 't', partition: 0 }, { topic: 'u', partition: 0 }, { topic: 'x', partition: 9 }], isFollower: true });
    expect(inc2.partitions.map((p) => `${p.topic}-${p.partition}`)).toEqual(['t-1']);
    expect(manager.cache.totalPartitions).toBe(1);
    const inc3 = manager.newContext({ sessionId, epoch: 3, partitions: [], forgotten: [{ topic: 't', partition: 1 }], isFollower: true });
    expect(inc3.kind).toBe('sessionless');
    expect(inc3.respond([])).toMatchObject({ sessionId: 0, errorCode: 0 });
    expect(manager.cache.size).toBe(0);
    expect(manager.cache.totalPartitions).toBe(0);
  });

  it('unknown session → FETCH_SESSION_ID_NOT_FOUND; wrong epoch → INVALID_FETCH_SESSION_EPOCH; both with no partitions and session 0', () => {
    const { manager, logs } = setup();
    const full = manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(0)], forgotten: [], isFollower: false });
    const { sessionId } = full.respond(read(full, logs));
    const unknown = manager.newContext({ sessionId: sessionId + 1, epoch: 1, partitions: [req(0)], forgotten: [], isFollower: false });
    expect(unknown.kind).toBe('error');
    expect(unknown.partitions).toEqual([]);
    expect(unknown.respond([])).toEqual({ errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, partitions: [] });
    for (const epoch of [2, 7, -5]) {
      const bad = manager.newContext({ sessionId, epoch, partitions: [req(0)], forgotten: [], isFollower: false });
      expect(bad.respond([])).toEqual({ errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: 0, partitions: [] });
    }
    // The session is unharmed: epoch 1 still works.
    expect(manager.newContext({ sessionId, epoch: 1, partitions: [], forgotten: [], isFollower: false }).kind).toBe('incremental');
    expect(manager.stats.consumer).toMatchObject({ sessionIdNotFound: 1, invalidEpoch: 3, incremental: 1 });
  });

  it('(X, 0) closes X and starts a new session; (X, -1) closes X and is sessionless', () => {
    const { manager, logs } = setup();
    const a = manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(0)], forgotten: [], isFollower: false });
    const x = a.respond(read(a, logs)).sessionId;
    const again = manager.newContext({ sessionId: x, epoch: 0, partitions: [req(0), req(1)], forgotten: [], isFollower: false });
    expect(again.kind).toBe('full');
    const y = again.respond(read(again, logs)).sessionId;
    expect(y).not.toBe(0);
    expect(y).not.toBe(x);
    expect(manager.cache.get(x)).toBeUndefined();
    expect(manager.cache.get(y)!.size).toBe(2);
    const close = manager.newContext({ sessionId: y, epoch: -1, partitions: [req(0)], forgotten: [], isFollower: false });
    expect(close.kind).toBe('sessionless');
    expect(close.respond(read(close, logs)).sessionId).toBe(0);
    expect(manager.cache.size).toBe(0);
  });

  it('a duplicate request racing the first: the first answer becomes INVALID_FETCH_SESSION_EPOCH with the session id', () => {
    const { manager, logs } = setup();
    const full = manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(0)], forgotten: [], isFollower: false });
    const { sessionId } = full.respond(read(full, logs));
    const first = manager.newContext({ sessionId, epoch: 1, partitions: [], forgotten: [], isFollower: false });
    // While the first waits (long poll), the client sends epoch 2.
    const second = manager.newContext({ sessionId, epoch: 2, partitions: [], forgotten: [], isFollower: false });
    expect(second.kind).toBe('incremental');
    expect(first.respond(read(first, logs))).toEqual({ errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId, partitions: [] });
    expect(second.respond(read(second, logs)).errorCode).toBe(0);
  });

  it('returned partitions move to the back of the session, so a size-limited read starts with the others next time', () => {
    const { manager, logs } = setup();
    const full = manager.newContext({ sessionId: 0, epoch: 0, partitions: [0, 1, 2, 3].map((p) => req(p, 5)), forgotten: [], isFollower: false });
    const { sessionId } = full.respond(read(full, logs));
    logs.set('t-1', { hw: 6, logStart: 0 });
    const inc = manager.newContext({ sessionId, epoch: 1, partitions: [], forgotten: [], isFollower: false });
    inc.respond(read(inc, logs));
    const next = manager.newContext({ sessionId, epoch: 2, partitions: [], forgotten: [], isFollower: false });
    expect(next.partitions.map((p) => p.partition)).toEqual([0, 2, 3, 1]);
  });

  it('a full cache answers a full fetch with session id 0, so the client stays sessionless', () => {
    const { manager, logs } = setup(1);
    const a = manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(0)], forgotten: [], isFollower: false });
    expect(a.respond(read(a, logs)).sessionId).not.toBe(0);
    const b = manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(0)], forgotten: [], isFollower: false });
    const res = b.respond(read(b, logs));
    expect(res.sessionId).toBe(0);
    expect(answered(res.partitions)).toEqual(['t-0']);
  });
});
