import { describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import type { FetchPartitionRequest } from '../cluster/replica-manager.js';
import { CachedPartition, FINAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from './fetch-session.js';
import { FETCH_SESSION_EVICTION_MS, FetchSessionCache } from './fetch-session-cache.js';
import { FetchManager } from './fetch-manager.js';

const req = (partition: number, fetchOffset = 0): FetchPartitionRequest => ({
  topic: 't',
  partition,
  fetchOffset,
  partitionMaxBytes: 1024,
  currentLeaderEpoch: -1,
  logStartOffset: -1,
});

/** A session map with `n` partitions. */
const parts = (n: number) => () => new Map(Array.from({ length: n }, (_, i) => [`t-${i}`, new CachedPartition(req(i))]));

/** Ids handed out in order 1, 2, 3... so eviction ties (broken by id) are predictable. */
function sequentialIds(): () => number {
  let next = 0;
  return () => ++next;
}

const MIN = 60_000;

describe('FetchMetadata epochs', () => {
  it('goes 0 → 1 → 2, wraps Int.MAX to 1, keeps FINAL', () => {
    expect(nextEpoch(0)).toBe(1);
    expect(nextEpoch(1)).toBe(2);
    expect(nextEpoch(2_147_483_647)).toBe(1);
    expect(nextEpoch(FINAL_EPOCH)).toBe(FINAL_EPOCH);
  });
});

describe('FetchSessionCache', () => {
  it('creates sessions with random positive ids, epoch 1 expected next, and counts their partitions', () => {
    const cache = new FetchSessionCache(10);
    const ids = new Set<number>();
    for (let i = 1; i <= 5; i++) {
      const id = cache.maybeCreateSession(1000, false, i, parts(i));
      expect(id).toBeGreaterThan(0);
      expect(id).toBeLessThan(2_147_483_647);
      ids.add(id);
      expect(cache.get(id)!.epoch).toBe(1);
    }
    expect(ids.size).toBe(5);
    expect(cache.size).toBe(5);
    expect(cache.totalPartitions).toBe(1 + 2 + 3 + 4 + 5);
    cache.remove([...ids][4]!);
    expect(cache.size).toBe(4);
    expect(cache.totalPartitions).toBe(10);
    expect(cache.remove(424242)).toBeUndefined();
    expect(cache.totalPartitions).toBe(10);
  });

  it('never hands out id 0 or an id in use', () => {
    const draws = [0, 7, 7, 0, 9];
    const cache = new FetchSessionCache(10, FETCH_SESSION_EVICTION_MS, () => draws.shift()!);
    expect(cache.maybeCreateSession(0, false, 1, parts(1))).toBe(7);
    expect(cache.maybeCreateSession(0, false, 1, parts(1))).toBe(9);
  });

  it('with no slots, creates nothing', () => {
    const cache = new FetchSessionCache(0);
    expect(cache.maybeCreateSession(0, true, 100, parts(100))).toBe(INVALID_SESSION_ID);
    expect(cache.size).toBe(0);
  });

  it('evicts first the least recently used session once it is unused for more than 120 s', () => {
    const cache = new FetchSessionCache(3, FETCH_SESSION_EVICTION_MS, sequentialIds());
    const a = cache.maybeCreateSession(0, true, 50, parts(50)); // privileged and big: only staleness can evict it
    const b = cache.maybeCreateSession(10, true, 50, parts(50));
    const c = cache.maybeCreateSession(20, true, 50, parts(50));
    // Full; at 120 s nothing is unused for *more than* 120 s, and a small unprivileged newcomer ranks lowest.
    expect(cache.maybeCreateSession(120_000, false, 1, parts(1))).toBe(INVALID_SESSION_ID);
    expect(cache.evictions).toBe(0);
    // a was touched at 110 s; now b (last used at 10 s) is the stale LRU.
    cache.touch(cache.get(a)!, 110_000);
    const d = cache.maybeCreateSession(130_011, false, 1, parts(1));
    expect(d).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(b)).toBeUndefined();
    expect(cache.get(a)).toBeDefined();
    expect(cache.get(c)).toBeDefined();
    expect(cache.evictions).toBe(1);
    expect(cache.totalPartitions).toBe(50 + 50 + 1);
  });

  it('breaks a lastUsed tie by the smaller id', () => {
    const cache = new FetchSessionCache(2, FETCH_SESSION_EVICTION_MS, sequentialIds());
    cache.maybeCreateSession(0, false, 1, parts(1)); // id 1
    cache.maybeCreateSession(0, false, 1, parts(1)); // id 2
    expect(cache.maybeCreateSession(200_000, false, 1, parts(1))).toBe(3);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(2)).toBeDefined();
  });

  it('without stale sessions, a newcomer with strictly more partitions evicts the smallest session created over 120 s ago', () => {
    const cache = new FetchSessionCache(3, FETCH_SESSION_EVICTION_MS, sequentialIds());
    const small = cache.maybeCreateSession(0, false, 5, parts(5));
    const mid = cache.maybeCreateSession(0, false, 10, parts(10));
    const young = cache.maybeCreateSession(100 * 1000, false, 1, parts(1)); // smallest but created recently
    // All in use: touches after 120 s make the old ones evictable by all.
    cache.touch(cache.get(small)!, 125_000);
    cache.touch(cache.get(mid)!, 125_000);
    cache.touch(cache.get(young)!, 125_000);
    // Same size as the smallest eligible (5): not strictly more, no eviction.
    expect(cache.maybeCreateSession(130_000, false, 5, parts(5))).toBe(INVALID_SESSION_ID);
    expect(cache.evictions).toBe(0);
    // Six partitions beat five; the young one-partition session is not eligible.
    const big = cache.maybeCreateSession(130_000, false, 6, parts(6));
    expect(big).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(small)).toBeUndefined();
    expect(cache.get(young)).toBeDefined();
    expect(cache.get(mid)).toBeDefined();
    expect(cache.evictions).toBe(1);
  });

  it('decides eligibility at the last touch, as Kafka: a session created long ago but not touched since is only evictable once stale', () => {
    const cache = new FetchSessionCache(1, FETCH_SESSION_EVICTION_MS, sequentialIds());
    const old = cache.maybeCreateSession(0, false, 1, parts(1));
    // At 119 s it is neither stale nor evictable by all (touched at creation, age 0 then).
    expect(cache.maybeCreateSession(119_000, false, 100, parts(100))).toBe(INVALID_SESSION_ID);
    cache.touch(cache.get(old)!, 121_000);
    expect(cache.maybeCreateSession(122_000, false, 100, parts(100))).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(old)).toBeUndefined();
  });

  it('privileged (follower) sessions evict unprivileged ones at once, whatever their size or age', () => {
    const cache = new FetchSessionCache(2, FETCH_SESSION_EVICTION_MS, sequentialIds());
    const consumerA = cache.maybeCreateSession(0, false, 500, parts(500));
    const consumerB = cache.maybeCreateSession(0, false, 400, parts(400));
    const follower = cache.maybeCreateSession(1000, true, 1, parts(1));
    expect(follower).not.toBe(INVALID_SESSION_ID);
    // The lowest-ranked unprivileged session (fewer partitions) went.
    expect(cache.get(consumerB)).toBeUndefined();
    expect(cache.get(consumerA)).toBeDefined();
    // A consumer cannot evict a young follower session, nor a young consumer one.
    expect(cache.maybeCreateSession(2000, false, 10_000, parts(10_000))).toBe(INVALID_SESSION_ID);
    // A second follower evicts the remaining consumer; a third finds only young privileged sessions.
    const follower2 = cache.maybeCreateSession(3000, true, 1, parts(1));
    expect(follower2).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(consumerA)).toBeUndefined();
    expect(cache.maybeCreateSession(4000, true, 1000, parts(1000))).toBe(INVALID_SESSION_ID);
    expect(cache.evictions).toBe(2);
  });

  it('a privileged newcomer may evict a privileged session created over 120 s ago if it has more partitions; a consumer may not', () => {
    const cache = new FetchSessionCache(1, FETCH_SESSION_EVICTION_MS, sequentialIds());
    const f1 = cache.maybeCreateSession(0, true, 3, parts(3));
    cache.touch(cache.get(f1)!, 121_000);
    expect(cache.maybeCreateSession(122_000, false, 1000, parts(1000))).toBe(INVALID_SESSION_ID); // unprivileged < privileged
    expect(cache.maybeCreateSession(122_000, true, 3, parts(3))).toBe(INVALID_SESSION_ID); // not strictly more
    const f2 = cache.maybeCreateSession(122_000, true, 4, parts(4));
    expect(f2).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(f1)).toBeUndefined();
  });

  it('2.8.2: every incremental fetch refreshes lastUsed, so a session in use is never stale (2.4.1 evicted it 120 s after creation)', () => {
    let now = 0;
    const cache = new FetchSessionCache(1, FETCH_SESSION_EVICTION_MS, sequentialIds());
    const manager = new FetchManager(cache, silentLogger(), () => now);
    const full = manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(0)], forgotten: [], isFollower: false });
    const { sessionId } = full.respond([{ topic: 't', partition: 0, errorCode: 0, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0, records: Buffer.alloc(0) }]);
    expect(sessionId).toBe(1);
    // Incremental fetches every 30 s for 5 minutes.
    let epoch = 1;
    for (now = 30_000; now <= 300_000; now += 30_000) {
      const ctx = manager.newContext({ sessionId, epoch, partitions: [], forgotten: [], isFollower: false });
      expect(ctx.kind).toBe('incremental');
      epoch = nextEpoch(epoch);
    }
    now = 300_000 + 1000;
    expect(cache.get(sessionId)!.lastUsedMs).toBe(300_000);
    // A newcomer with more partitions: the session was created > 120 s ago and touched since, so it *is*
    // evictable by rank — but not for being stale; the same-size newcomer does not evict it.
    expect(manager.newContext({ sessionId: 0, epoch: 0, partitions: [req(5)], forgotten: [], isFollower: false }).respond([
      { topic: 't', partition: 5, errorCode: 0, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0, records: Buffer.alloc(0) },
    ]).sessionId).toBe(INVALID_SESSION_ID);
    expect(cache.get(sessionId)).toBeDefined();
    expect(cache.evictions).toBe(0);
    // Unused for more than 120 s after its last incremental fetch, it is stale.
    now = 300_000 + 2 * MIN + 1;
    expect(cache.maybeCreateSession(now, false, 1, parts(1))).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(sessionId)).toBeUndefined();
  });
});
