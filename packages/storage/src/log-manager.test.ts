import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ErrorCode, GregorError } from '@gregor/common';
import {
  CLEAN_SHUTDOWN_FILE,
  HIGH_WATERMARK_CHECKPOINT_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  LogManager,
  RECOVERY_POINT_CHECKPOINT_FILE,
  type LogManagerOptions,
} from './log-manager.js';
import { readMetaProperties } from './meta-properties.js';
import { producerBatch, simpleBatch, tempDir, testConfig, testLogger } from './test-batches.js';

let root: { path: string; cleanup(): void };
let dirs: string[];
const managers: LogManager[] = [];
beforeEach(() => {
  root = tempDir();
  dirs = [join(root.path, 'a'), join(root.path, 'b')];
});
afterEach(() => {
  for (const m of managers.splice(0)) m.shutdown();
  root.cleanup();
});

function manager(overrides: Partial<LogManagerOptions> = {}): LogManager {
  const m = new LogManager({
    logDirs: dirs,
    defaultConfig: testConfig({ segmentBytes: 2000 }),
    logger: testLogger(),
    brokerId: 1,
    clusterId: 'c1',
    retentionCheckIntervalMs: 60_000,
    flushCheckpointIntervalMs: 60_000,
    ...overrides,
  });
  managers.push(m);
  return m;
}

describe('LogManager', () => {
  it('spreads logs over log.dirs, checkpoints on shutdown and reloads them', async () => {
    const m = manager();
    m.startup();
    for (const d of dirs) expect(readMetaProperties(d)).toEqual({ brokerId: 1, clusterId: 'c1' });
    const a = m.getOrCreateLog('orders-eu', 0);
    const b = m.getOrCreateLog('orders-eu', 1);
    expect(m.getOrCreateLog('orders-eu', 0)).toBe(a);
    expect(new Set([a.dir, b.dir].map((d) => d.split('/').at(-2))).size).toBe(2);
    for (let i = 0; i < 10; i++) a.appendAsLeader(simpleBatch(2, 100), 3);
    b.appendAsLeader(simpleBatch(1), 3);
    a.updateHighWatermark(15);
    b.updateHighWatermark(1);
    await m.awaitLeaderEpochCheckpoints(); // as KafkaServer does before shutting down
    m.shutdown();
    const aDir = a.dir.split('/').slice(0, -1).join('/');
    expect(existsSync(join(aDir, CLEAN_SHUTDOWN_FILE))).toBe(true);
    expect(readFileSync(join(aDir, HIGH_WATERMARK_CHECKPOINT_FILE), 'utf8')).toBe('0\n1\norders-eu 0 15\n');
    expect(readFileSync(join(aDir, RECOVERY_POINT_CHECKPOINT_FILE), 'utf8')).toBe('0\n1\norders-eu 0 20\n');
    expect(readFileSync(join(aDir, LOG_START_OFFSET_CHECKPOINT_FILE), 'utf8')).toBe('0\n1\norders-eu 0 0\n');

    const again = manager();
    again.startup();
    expect(existsSync(join(aDir, CLEAN_SHUTDOWN_FILE))).toBe(false);
    const a2 = again.getLog('orders-eu', 0)!;
    expect([a2.logEndOffset, a2.highWatermark, a2.recoveryPoint]).toEqual([20, 15, 20]);
    expect(a2.leaderEpochCache.entries()).toEqual([{ epoch: 3, startOffset: 0 }]);
    expect(again.allLogs()).toHaveLength(2);
    expect(a2.appendAsLeader(simpleBatch(1), 3).firstOffset).toBe(20);
  });

  it('a shutdown with a leader-epoch-checkpoint write in flight leaves that dir unclean; the next start recovers the epochs', () => {
    const m = manager({ logDirs: [dirs[0]!], leaderEpochCheckpointWriter: () => new Promise(() => {}) });
    m.startup();
    const log = m.getOrCreateLog('epochs', 0);
    log.appendAsLeader(simpleBatch(2), 4);
    log.appendAsLeader(simpleBatch(3), 6);
    m.shutdown();
    expect(existsSync(join(dirs[0]!, CLEAN_SHUTDOWN_FILE))).toBe(false);
    expect(readFileSync(join(dirs[0]!, RECOVERY_POINT_CHECKPOINT_FILE), 'utf8')).toBe('0\n1\nepochs 0 0\n');
    const again = manager({ logDirs: [dirs[0]!] });
    again.startup();
    expect(again.getLog('epochs', 0)!.leaderEpochCache.entries()).toEqual([
      { epoch: 4, startOffset: 0 },
      { epoch: 6, startOffset: 2 },
    ]);
  });

  it('lists logs by dir and checkpoints log start offsets asynchronously', async () => {
    const m = manager();
    m.startup();
    const a = m.getOrCreateLog('t', 0);
    const b = m.getOrCreateLog('t', 1);
    const byDir = m.logsByDir();
    expect([...byDir.keys()]).toEqual(dirs);
    expect([...byDir.values()].map((logs) => logs.length)).toEqual([1, 1]);
    for (let i = 0; i < 3; i++) a.appendAsLeader(simpleBatch(1), 0);
    a.updateHighWatermark(3);
    a.maybeIncrementLogStartOffset(2);
    await m.checkpointLogStartOffsetsAsync();
    const aDir = a.dir.split('/').slice(0, -1).join('/');
    expect(readFileSync(join(aDir, LOG_START_OFFSET_CHECKPOINT_FILE), 'utf8')).toBe('0\n1\nt 0 2\n');
    expect(b.logStartOffset).toBe(0);
  });

  it('checks meta.properties against broker.id and cluster.id', () => {
    const m = manager();
    m.startup();
    m.shutdown();
    expect(() => manager({ brokerId: 2 }).startup()).toThrow(ConfigError);
    expect(() => manager({ clusterId: 'other' }).startup()).toThrow(ConfigError);
    const adopt = manager({ clusterId: undefined });
    adopt.startup();
    expect(adopt.clusterId).toBe('c1');
  });

  it('deletes logs by renaming them to -delete (removed off the event loop), and finishes interrupted deletions at startup', async () => {
    const m = manager({ logDirs: [dirs[0]!] });
    m.startup();
    const log = m.getOrCreateLog('gone', 0);
    log.appendAsLeader(simpleBatch(1), 0);
    const removal = m.deleteLog('gone', 0);
    expect(m.getLog('gone', 0)).toBeUndefined();
    expect(readdirSync(dirs[0]!).filter((n) => n.startsWith('gone-0'))).toEqual([expect.stringMatching(/^gone-0\.[0-9a-f]{32}-delete$/)]);
    await removal;
    expect(readdirSync(dirs[0]!).filter((n) => !n.startsWith('.') && !n.includes('checkpoint') && n !== 'meta.properties')).toEqual([]);
    m.shutdown();
    mkdirSync(join(dirs[0]!, 'stale-0.0123abcd-delete'));
    mkdirSync(join(dirs[0]!, 'not a partition'));
    const again = manager({ logDirs: [dirs[0]!] });
    again.startup();
    expect(existsSync(join(dirs[0]!, 'stale-0.0123abcd-delete'))).toBe(false);
    expect(again.allLogs()).toEqual([]);
  });

  it('refuses directory names that would leave the log dir', () => {
    const m = manager();
    m.startup();
    for (const topic of ['..', '.', 'a/../../etc']) {
      let code: number | undefined;
      try {
        m.getOrCreateLog(topic, 0);
      } catch (err) {
        code = (err as GregorError).code;
      }
      expect(code, topic).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    }
    expect(readdirSync(root.path).sort()).toEqual(['a', 'b']);
  });

  it('runs retention and checkpoints on timers that stop at shutdown', async () => {
    const m = manager({ retentionCheckIntervalMs: 20, flushCheckpointIntervalMs: 20, defaultConfig: testConfig({ segmentBytes: 700, retentionBytes: 0 }) });
    m.startup();
    const log = m.getOrCreateLog('t', 0, { retentionBytes: 0 });
    for (let i = 0; i < 6; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    log.updateHighWatermark(log.logEndOffset);
    const hwFile = join(log.dir, '..', HIGH_WATERMARK_CHECKPOINT_FILE);
    // Timers every 20 ms; on a loaded machine a round can take longer, so wait for the outcome.
    await vi.waitFor(() => {
      expect(log.logStartOffset).toBe(12);
      expect(existsSync(hwFile) && readFileSync(hwFile, 'utf8')).toBe('0\n1\nt 0 12\n');
    }, { timeout: 10_000, interval: 20 });
    m.shutdown();
    expect(() => m.getOrCreateLog('t', 1)).toThrow(GregorError);
  });

  it('removes producer ids idle for producer.id.expiration.ms on its own timer, and stops it at shutdown', async () => {
    const m = manager({ producerIdExpirationMs: 200, producerIdExpirationCheckIntervalMs: 50 });
    m.startup();
    const log = m.getOrCreateLog('idem', 0);
    log.appendAsLeader(producerBatch(7, 0, 0, 1, Date.now()), 0);
    expect(log.producerState.isEmpty).toBe(false);
    const deadline = Date.now() + 5000;
    while (!log.producerState.isEmpty && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(log.producerState.isEmpty).toBe(true);
    m.shutdown();
    expect(existsSync(join(log.dir, '00000000000000000001.snapshot'))).toBe(true);
  });
});
