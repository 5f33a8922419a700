import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeCheckpointFile } from './checkpoint-file.js';
import { PartitionLog } from './log.js';
import { LogManager } from './log-manager.js';
import type { LogConfig } from './log-config.js';
import { nodeIo, type SegmentIo } from './segment-io.js';
import { simpleBatch, tempDir, testConfig, testLogger } from './test-batches.js';

let dir: { path: string; cleanup(): void };
const opened: PartitionLog[] = [];
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  for (const log of opened.splice(0)) log.close();
  dir.cleanup();
});

/** node:fs, counting the fsyncs of segment `.log` files (real files, real fsyncs). */
function countingIo() {
  const paths = new Map<number, string>();
  const io: SegmentIo & { logFsyncs: number } = {
    ...nodeIo,
    logFsyncs: 0,
    openSync(path, flags) {
      const fd = nodeIo.openSync(path, flags);
      paths.set(fd, path);
      return fd;
    },
    fsyncSync(fd) {
      if (paths.get(fd)?.endsWith('.log')) io.logFsyncs++;
      nodeIo.fsyncSync(fd);
    },
  };
  return io;
}

function openLog(config: Partial<LogConfig>, io: SegmentIo, time: () => number = Date.now): PartitionLog {
  const log = new PartitionLog({ dir: join(dir.path, 'orders-0'), topic: 'orders', partition: 0, config: testConfig(config), logger: testLogger(), hadCleanShutdown: true, io, time });
  opened.push(log);
  return log;
}

describe('flush.messages', () => {
  it('fsyncs before the append returns once that many messages are unflushed, and moves the recovery point', () => {
    const io = countingIo();
    const log = openLog({ flushMessages: 5 }, io);
    log.appendAsLeader(simpleBatch(3), 0);
    expect([io.logFsyncs, log.recoveryPoint, log.unflushedMessages]).toEqual([0, 0, 3]);
    log.appendAsLeader(simpleBatch(2), 0);
    expect([io.logFsyncs, log.recoveryPoint, log.unflushedMessages]).toEqual([1, 5, 0]);
    log.appendAsFollower(followerBatch(5, 6));
    expect([io.logFsyncs, log.recoveryPoint]).toEqual([2, 11]);
  });

  it('flush.messages=1 fsyncs every append; the default never does', () => {
    const every = countingIo();
    const log = openLog({ flushMessages: 1 }, every);
    for (let i = 0; i < 3; i++) log.appendAsLeader(simpleBatch(1), 0);
    expect(every.logFsyncs).toBe(3);
    log.close();
    opened.splice(0);
    dir.cleanup();
    dir = tempDir();
    const never = countingIo();
    const quiet = openLog({}, never);
    for (let i = 0; i < 3; i++) quiet.appendAsLeader(simpleBatch(100), 0);
    expect([never.logFsyncs, quiet.recoveryPoint]).toEqual([0, 0]);
  });
});

describe('flush.ms', () => {
  it('a log with unflushed messages is fsynced once its last flush is flush.ms old', () => {
    const io = countingIo();
    const clock = { now: 1_000_000 };
    const log = openLog({ flushMs: 1000 }, io, () => clock.now);
    expect(log.flushIfDue(clock.now + 5000)).toBe(false); // nothing unflushed
    log.appendAsLeader(simpleBatch(2), 0);
    expect(log.flushIfDue(clock.now + 999)).toBe(false);
    expect(io.logFsyncs).toBe(0);
    clock.now += 1000;
    expect(log.flushIfDue(clock.now)).toBe(true);
    expect([io.logFsyncs, log.recoveryPoint]).toEqual([1, 2]);
    expect(log.flushIfDue(clock.now + 1000)).toBe(false); // clean again
  });

  it('the log manager runs the check on log.flush.scheduler.interval.ms, for each log`s own flush.ms', async () => {
    const io = countingIo();
    const m = new LogManager({
      logDirs: [join(dir.path, 'd')],
      defaultConfig: testConfig(),
      logger: testLogger(),
      brokerId: 1,
      retentionCheckIntervalMs: 3_600_000,
      flushCheckpointIntervalMs: 3_600_000,
      flushCheckIntervalMs: 10,
      io,
    });
    m.startup();
    try {
      const fast = m.getOrCreateLog('fast', 0, { flushMs: 0 });
      const slow = m.getOrCreateLog('slow', 0, {});
      fast.appendAsLeader(simpleBatch(2), 0);
      slow.appendAsLeader(simpleBatch(2), 0);
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (fast.recoveryPoint === 2) {
            clearInterval(poll);
            resolve();
          }
        }, 5);
      });
      expect([fast.recoveryPoint, slow.recoveryPoint]).toEqual([2, 0]);
      expect(m.flushDirtyLogs()).toBe(0);
    } finally {
      m.shutdown();
    }
  });
});

/** node:fs, with the thread-pool fsyncs held until `release()`: the test decides when they finish. */
function heldFsyncIo() {
  const held: { fd: number; callback: (err: NodeJS.ErrnoException | null) => void }[] = [];
  return Object.assign(countingIo(), {
    fsync(fd: number, callback: (err: NodeJS.ErrnoException | null) => void) {
      held.push({ fd, callback });
    },
    held,
    /** Runs the held fsyncs, then lets the callbacks' promise chains settle. */
    async release() {
      await Promise.all(held.splice(0).map(({ fd, callback }) => new Promise<void>((resolve) => nodeIo.fsync(fd, (err) => {
        callback(err);
        resolve();
      }))));
      await new Promise((resolve) => setImmediate(resolve));
    },
  });
}

describe('segment roll', () => {
  it('fsyncs the rolled segment off the event loop, then moves the recovery point to the new segment', async () => {
    const io = heldFsyncIo();
    const log = openLog({ segmentBytes: 200 }, io);
    log.appendAsLeader(simpleBatch(2, 60), 0);
    log.appendAsLeader(simpleBatch(2, 60), 0); // rolls: the first segment is full
    expect(log.segmentBaseOffsets().length).toBe(2);
    expect(io.logFsyncs).toBe(0); // nothing fsynced on the loop
    expect(io.held.length).toBe(3); // the .log and its two indexes, queued for the thread pool
    expect(log.recoveryPoint).toBe(0);
    await io.release();
    expect(log.recoveryPoint).toBe(2);
  });

  it('a truncation while the flush runs keeps the recovery point where it was (those offsets hold new data)', async () => {
    const io = heldFsyncIo();
    const log = openLog({ segmentBytes: 200 }, io);
    log.appendAsLeader(simpleBatch(2, 60), 0);
    log.appendAsLeader(simpleBatch(2, 60), 0);
    log.truncateTo(1);
    log.appendAsLeader(simpleBatch(3, 10), 0); // offsets 1..3, unflushed
    await io.release();
    expect(log.recoveryPoint).toBe(0);
  });

  it('a segment deleted while its flush runs keeps its files open until the flush finished', async () => {
    const io = heldFsyncIo();
    const log = openLog({ segmentBytes: 200 }, io);
    log.appendAsLeader(simpleBatch(2, 60), 0);
    log.appendAsLeader(simpleBatch(2, 60), 0);
    log.updateHighWatermark(4);
    log.maybeIncrementLogStartOffset(2); // deletes the rolled segment
    expect(log.segmentBaseOffsets().length).toBe(1);
    await io.release(); // the held fsyncs ran on open descriptors: no EBADF logged, nothing thrown
    log.close();
    opened.splice(opened.indexOf(log), 1);
    expect(log.recoveryPoint).toBe(2);
  });
});

/** A batch as a leader wrote it at `baseOffset`. */
function followerBatch(baseOffset: number, count: number): Buffer {
  const b = simpleBatch(count);
  b.writeBigInt64BE(BigInt(baseOffset), 0);
  return b;
}

describe('leader-epoch-checkpoint written off the event loop', () => {
  it('the recovery point stays below an epoch whose checkpoint has not landed, so a crash recovers it from the batches', async () => {
    const landed: (() => void)[] = [];
    const writer = (path: string, lines: readonly string[], stillWanted: () => boolean) =>
      new Promise<void>((resolve) => landed.push(() => {
        if (stillWanted()) writeCheckpointFile(path, lines);
        resolve();
      }));
    const slow = new PartitionLog({ dir: join(dir.path, 'slow-0'), topic: 'slow', partition: 0, config: testConfig(), logger: testLogger(), hadCleanShutdown: true, leaderEpochCheckpointWriter: writer });
    slow.appendAsLeader(simpleBatch(3), 1);
    slow.appendAsLeader(simpleBatch(2), 2);
    slow.flush();
    expect(slow.recoveryPoint).toBe(0); // epoch 1's entry (at 0) is not in the file yet
    // A crash now: the file has no epochs, but recovery starts at 0 and finds both in the batches.
    slow.close();
    const recovered = new PartitionLog({ dir: join(dir.path, 'slow-0'), topic: 'slow', partition: 0, config: testConfig(), logger: testLogger(), hadCleanShutdown: false, recoveryPoint: slow.recoveryPoint });
    opened.push(recovered);
    expect(recovered.leaderEpochCache.entries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
    ]);
    for (const land of landed.splice(0)) land(); // closed meanwhile: dropped
  });

  it('once the write lands, a flush moves the recovery point to the LEO', async () => {
    const landed: (() => void)[] = [];
    const writer = (path: string, lines: readonly string[]) =>
      new Promise<void>((resolve) => landed.push(() => {
        writeCheckpointFile(path, lines);
        resolve();
      }));
    const log = new PartitionLog({ dir: join(dir.path, 'w-0'), topic: 'w', partition: 0, config: testConfig(), logger: testLogger(), hadCleanShutdown: true, leaderEpochCheckpointWriter: writer });
    opened.push(log);
    log.appendAsLeader(simpleBatch(3), 1);
    log.flush();
    expect(log.recoveryPoint).toBe(0);
    landed.shift()!();
    await log.leaderEpochCache.whenIdle();
    log.flush();
    expect(log.recoveryPoint).toBe(3);
  });
});
