import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { writeCheckpointFile } from './checkpoint-file.js';
import { LeaderEpochCache, type CheckpointWriter } from './leader-epoch-cache.js';
import { tempDir } from './test-batches.js';

let dir: { path: string; cleanup(): void };
let leo = 0;
beforeEach(() => {
  dir = tempDir();
  leo = 0;
});
afterEach(() => dir.cleanup());

describe('LeaderEpochCache', () => {
  it('assigns epochs, persists them and survives a reload', () => {
    const cache = new LeaderEpochCache(dir.path, () => leo);
    cache.assign(0, 0);
    cache.assign(0, 5); // same epoch later: ignored
    cache.assign(2, 10);
    cache.assign(-1, 20); // producers' -1: ignored
    expect(cache.entries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 10 },
    ]);
    expect(readFileSync(cache.path, 'utf8')).toBe('0\n2\n0 0\n2 10\n');
    expect(new LeaderEpochCache(dir.path, () => leo).entries()).toEqual(cache.entries());
    expect(cache.latestEpoch).toBe(2);
  });

  it('answers endOffsetFor like OffsetsForLeaderEpoch', () => {
    const cache = new LeaderEpochCache(dir.path, () => leo);
    expect(cache.endOffsetFor(0)).toEqual({ epoch: -1, endOffset: -1 });
    cache.assign(1, 0);
    cache.assign(3, 10);
    cache.assign(5, 25);
    leo = 40;
    expect(cache.endOffsetFor(5)).toEqual({ epoch: 5, endOffset: 40 });
    expect(cache.endOffsetFor(3)).toEqual({ epoch: 3, endOffset: 25 });
    expect(cache.endOffsetFor(4)).toEqual({ epoch: 3, endOffset: 25 });
    expect(cache.endOffsetFor(0)).toEqual({ epoch: 0, endOffset: 0 });
    expect(cache.endOffsetFor(6)).toEqual({ epoch: -1, endOffset: -1 });
    expect(cache.endOffsetFor(-1)).toEqual({ epoch: -1, endOffset: -1 });
  });

  it('replaces stale entries and truncates from either end', () => {
    const cache = new LeaderEpochCache(dir.path, () => leo);
    cache.assign(1, 0);
    cache.assign(2, 10);
    cache.assign(3, 20);
    cache.assign(2, 15); // a lower epoch at a later offset wipes epochs >= 2
    expect(cache.entries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 15 },
    ]);
    cache.assign(4, 30);
    cache.truncateFromEnd(30);
    expect(cache.latestEpoch).toBe(2);
    cache.assign(4, 30);
    cache.truncateFromStart(17);
    expect(cache.entries()).toEqual([
      { epoch: 2, startOffset: 17 },
      { epoch: 4, startOffset: 30 },
    ]);
    cache.truncateFromStart(5); // before every entry: nothing to do
    expect(cache.entries()[0]).toEqual({ epoch: 2, startOffset: 17 });
    cache.clear();
    expect(new LeaderEpochCache(dir.path, () => leo).entries()).toEqual([]);
  });
});

/** A background writer whose writes the test completes (really writing the file) when it chooses. */
function deferredWriter() {
  const pending: { lines: readonly string[]; stillWanted: () => boolean; done: () => Promise<void> }[] = [];
  const write: CheckpointWriter = (path, lines, stillWanted) =>
    new Promise<void>((resolve) => {
      pending.push({
        lines,
        stillWanted,
        done: async () => {
          if (stillWanted()) writeCheckpointFile(path, lines);
          resolve();
          await new Promise((r) => setImmediate(r));
        },
      });
    });
  return { write, pending };
}

describe('LeaderEpochCache with background writes', () => {
  it('assign returns before the write; one write at a time, the latest state next; firstUndurableOffset tracks the file', async () => {
    const w = deferredWriter();
    const cache = new LeaderEpochCache(dir.path, () => leo, w.write);
    cache.assign(1, 0);
    cache.assign(2, 10);
    cache.assign(3, 20);
    expect(w.pending.map((p) => p.lines)).toEqual([['1 0']]);
    expect([cache.firstUndurableOffset, cache.isDurable]).toEqual([0, false]);
    const idle = cache.whenIdle();
    let isIdle = false;
    void idle.then(() => (isIdle = true));
    await w.pending.shift()!.done();
    // The first write landed (epoch 1); epochs 2 and 3 go in the next one, together.
    expect(w.pending.map((p) => p.lines)).toEqual([['1 0', '2 10', '3 20']]);
    expect([cache.firstUndurableOffset, isIdle]).toEqual([10, false]);
    await w.pending.shift()!.done();
    expect([cache.firstUndurableOffset, cache.isDurable, isIdle]).toEqual([Infinity, true, true]);
    expect(new LeaderEpochCache(dir.path, () => leo).entries()).toEqual(cache.entries());
  });

  it('a write still in flight when the cache closes is dropped (the dir may belong to a new log by then)', async () => {
    const w = deferredWriter();
    const cache = new LeaderEpochCache(dir.path, () => leo, w.write);
    cache.assign(4, 0);
    expect(cache.flushSyncIfIdle()).toBe(false);
    cache.close();
    await w.pending.shift()!.done();
    expect(existsSync(cache.path)).toBe(false);
  });
});
