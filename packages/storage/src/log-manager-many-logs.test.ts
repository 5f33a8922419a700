import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { boundedCheckpointWriter, type CheckpointWriter } from './leader-epoch-cache.js';
import { LogManager } from './log-manager.js';
import { simpleBatch, tempDir, testConfig, testLogger } from './test-batches.js';

let root: { path: string; cleanup(): void };
const managers: LogManager[] = [];
beforeEach(() => {
  root = tempDir();
});
afterEach(async () => {
  for (const m of managers.splice(0)) {
    await m.awaitLeaderEpochCheckpoints();
    m.shutdown();
  }
  root.cleanup();
});

function manager(): LogManager {
  const m = new LogManager({
    logDirs: [join(root.path, 'a'), join(root.path, 'b')],
    defaultConfig: testConfig({ segmentBytes: 2000 }),
    logger: testLogger(),
    brokerId: 1,
    retentionCheckIntervalMs: 60_000,
    flushCheckpointIntervalMs: 60_000,
  });
  managers.push(m);
  return m;
}

/** Counts the turns the event loop got while `work` ran (a setImmediate chain). */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    turns++;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  done = true;
  return { result, turns };
}

const LOGS = 400;

describe('LogManager with many logs', () => {
  it('createLogs creates every log across log.dirs, letting the event loop turn, and leaves existing logs alone', async () => {
    const m = manager();
    m.startup();
    const existing = m.getOrCreateLog('t', 0);
    existing.appendAsLeader(simpleBatch(3), 0);
    const specs = Array.from({ length: LOGS }, (_, i) => ({ topic: 't', partition: i, config: { retentionMs: 1234 } }));
    const { turns } = await turnsDuring(() => m.createLogs(specs));
    expect(m.allLogs()).toHaveLength(LOGS);
    expect(m.getLog('t', 0)).toBe(existing);
    expect(existing.logEndOffset).toBe(3);
    expect(m.getLog('t', 7)!.config.retentionMs).toBe(1234);
    // Spread evenly, as getOrCreateLog does one at a time.
    expect([...m.logsByDir().values()].map((l) => l.length)).toEqual([LOGS / 2, LOGS / 2]);
    // 400 logs take far more than one 10 ms slice on any machine: the loop turned in between.
    expect(turns).toBeGreaterThan(1);
  });

  it('startupAsync loads every log as startup does (offsets, high watermarks), letting the event loop turn', async () => {
    const m = manager();
    m.startup();
    for (let i = 0; i < LOGS; i++) {
      const log = m.getOrCreateLog('t', i);
      log.appendAsLeader(simpleBatch(1 + (i % 5)), 2);
      log.updateHighWatermark(1 + (i % 3));
    }
    await m.awaitLeaderEpochCheckpoints();
    m.shutdown();
    const again = manager();
    const { turns } = await turnsDuring(() => again.startupAsync());
    expect(again.allLogs()).toHaveLength(LOGS);
    for (let i = 0; i < LOGS; i++) {
      const log = again.getLog('t', i)!;
      expect(log.logEndOffset).toBe(1 + (i % 5));
      expect(log.highWatermark).toBe(Math.min(1 + (i % 3), 1 + (i % 5)));
      expect(log.leaderEpochCache.latestEpoch).toBe(2);
    }
    expect(turns).toBeGreaterThan(1);
    // Running afterwards like a manager started synchronously.
    expect(again.getOrCreateLog('t', LOGS).logEndOffset).toBe(0);
  });
});

describe('boundedCheckpointWriter', () => {
  it('starts the writes after the current turn, at most `concurrency` at a time, and settles each', async () => {
    let running = 0;
    let most = 0;
    const finishers: (() => void)[] = [];
    const slow: CheckpointWriter = () =>
      new Promise<void>((resolve) => {
        running++;
        most = Math.max(most, running);
        finishers.push(() => {
          running--;
          resolve();
        });
      });
    const write = boundedCheckpointWriter(slow, 3);
    const settled: number[] = [];
    const writes = Array.from({ length: 10 }, (_, i) => write(`p${i}`, [], () => true).then(() => settled.push(i)));
    expect(running).toBe(0); // queued only: the caller's turn is not spent on them
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(3);
    while (settled.length < 10) {
      finishers.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(writes);
    expect(most).toBe(3);
    expect(settled).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
