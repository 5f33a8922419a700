import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ErrorCode, GregorError } from '@gregor/common';
import { LogDirFailureChannel, isStorageFailure } from './log-dir-failure-channel.js';
import { LogManager } from './log-manager.js';
import { nodeIo, type SegmentIo } from './segment-io.js';
import { simpleBatch, tempDir, testConfig, testLogger } from './test-batches.js';

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });

let root: { path: string; cleanup(): void };
let dirs: string[];
let manager: LogManager | undefined;
beforeEach(() => {
  root = tempDir();
  dirs = [join(root.path, 'full'), join(root.path, 'healthy')];
});
afterEach(() => {
  manager?.shutdown();
  manager = undefined;
  root.cleanup();
});

/** node:fs, except that writes to files under `failing` fail with ENOSPC once `full` is set. */
function fillableIo(failing: string, state: { full: boolean }): SegmentIo {
  const paths = new Map<number, string>();
  return {
    ...nodeIo,
    openSync(path, flags) {
      const fd = nodeIo.openSync(path, flags);
      paths.set(fd, path);
      return fd;
    },
    writeSync(fd, buffer, offset, length, position) {
      if (state.full && paths.get(fd)?.startsWith(failing)) throw enospc();
      return nodeIo.writeSync(fd, buffer, offset, length, position);
    },
  };
}

describe('a failing log dir (KIP-112)', () => {
  it('recognises storage failures by errno, also as the cause of a KAFKA_STORAGE_ERROR', () => {
    expect(isStorageFailure(enospc())).toBe(true);
    expect(isStorageFailure(Object.assign(new Error('EIO'), { code: 'EIO' }))).toBe(true);
    expect(isStorageFailure(new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, 'append failed', { cause: enospc() }))).toBe(true);
    expect(isStorageFailure(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe(false);
    expect(isStorageFailure(new Error('bug'))).toBe(false);
  });

  it('an ENOSPC append takes only its dir offline; the other dir keeps serving and takes new logs', async () => {
    const state = { full: false };
    const channel = new LogDirFailureChannel(testLogger());
    const reported: string[] = [];
    channel.onOfflineLogDir((d) => reported.push(d));
    manager = new LogManager({
      logDirs: dirs,
      defaultConfig: testConfig({ segmentBytes: 1 << 20 }),
      logger: testLogger(),
      brokerId: 1,
      retentionCheckIntervalMs: 60_000,
      flushCheckpointIntervalMs: 60_000,
      io: fillableIo(dirs[0]!, state),
      logDirFailureChannel: channel,
    });
    manager.startup();
    const a = manager.getOrCreateLog('t', 0); // least loaded: dirs[0]
    const b = manager.getOrCreateLog('t', 1); // dirs[1]
    expect(a.dir.startsWith(dirs[0]!)).toBe(true);
    expect(b.dir.startsWith(dirs[1]!)).toBe(true);
    a.appendAsLeader(simpleBatch(3), 0);

    state.full = true;
    expect(() => a.appendAsLeader(simpleBatch(3), 0)).toThrow(expect.objectContaining({ code: ErrorCode.KAFKA_STORAGE_ERROR }));
    expect(channel.hasOfflineLogDir(dirs[0]!)).toBe(true);
    expect(channel.hasOfflineLogDir(dirs[1]!)).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(reported).toEqual([dirs[0]]); // told once, after the failing call returned

    expect(manager.handleLogDirFailure(dirs[0]!)).toEqual([{ topic: 't', partition: 0 }]);
    expect(manager.handleLogDirFailure(dirs[0]!)).toEqual([]); // once
    expect(manager.isPartitionOffline('t', 0)).toBe(true);
    expect(manager.getLog('t', 0)).toBeUndefined();
    expect(() => manager!.getOrCreateLog('t', 0)).toThrow(expect.objectContaining({ code: ErrorCode.KAFKA_STORAGE_ERROR }));
    // The healthy dir carries on, and new partitions go there.
    b.appendAsLeader(simpleBatch(2), 0);
    expect(b.logEndOffset).toBe(2);
    expect(manager.getOrCreateLog('t', 2).dir.startsWith(dirs[1]!)).toBe(true);
    expect(manager.onlineLogDirs()).toEqual([dirs[1]]);
    manager.checkpointHighWatermarks(); // skips the failed dir instead of throwing
  });
});
