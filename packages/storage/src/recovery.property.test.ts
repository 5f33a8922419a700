import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cpSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchOffsets } from '@gregor/protocol';
import { LogManager, RECOVERY_POINT_CHECKPOINT_FILE } from './log-manager.js';
import type { PartitionLog } from './log.js';
import { makeBatch, tempDir, testConfig, testLogger } from './test-batches.js';

/**
 * Crash recovery as a property: random appends (with a flush + recovery-point checkpoint somewhere in between),
 * a copy of the files as a crash would leave them, then damage that only unflushed bytes can suffer (a torn
 * write or a flipped byte), and a restart without the clean-shutdown marker.
 */

let root: { path: string; cleanup(): void };
beforeEach(() => {
  root = tempDir('gregor-recovery-');
});
afterEach(() => root.cleanup());

const config = testConfig({ segmentBytes: 1500, indexIntervalBytes: 200 });
const TOPIC = 'prop-topic';

function newManager(dir: string): LogManager {
  return new LogManager({
    logDirs: [dir],
    defaultConfig: config,
    logger: testLogger(),
    brokerId: 1,
    retentionCheckIntervalMs: 3_600_000,
    flushCheckpointIntervalMs: 3_600_000,
    // Epoch checkpoints written through, so that the recovery point is exactly the last fsync (the model of this
    // property); background epoch writes hold it lower, which log-flush.test.ts covers.
    leaderEpochCheckpointWriter: null,
  });
}

interface AppendSpec {
  values: number[];
  timestamp: number;
  epoch: number;
}

const appendArb: fc.Arbitrary<AppendSpec> = fc.record({
  values: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 4 }),
  timestamp: fc.integer({ min: 1_600_000_000_000, max: 1_700_000_000_000 }),
  epoch: fc.integer({ min: 0, max: 3 }),
});

interface Written {
  /** Expected stored bytes by base offset. */
  batches: Map<number, Buffer>;
  flushedOffset: number;
}

function appendAll(log: PartitionLog, appends: AppendSpec[], flushAt: number, manager: LogManager): Written {
  const batches = new Map<number, Buffer>();
  let flushedOffset = 0;
  let epoch = 0;
  for (let i = 0; i <= appends.length; i++) {
    if (i === flushAt) {
      log.flush();
      manager.checkpointRecoveryPoints();
      flushedOffset = log.logEndOffset;
    }
    if (i === appends.length) break;
    const a = appends[i]!;
    epoch = Math.max(epoch, a.epoch);
    const batch = makeBatch({ records: a.values.map((n) => ({ value: Buffer.alloc(n, n % 256) })), firstTimestamp: a.timestamp });
    const { firstOffset } = log.appendAsLeader(batch, epoch);
    const stored = Buffer.from(batch);
    stored.writeBigInt64BE(BigInt(firstOffset), BatchOffsets.baseOffset);
    stored.writeInt32BE(epoch, BatchOffsets.partitionLeaderEpoch);
    batches.set(firstOffset, stored);
  }
  return { batches, flushedOffset };
}

/** Byte ranges of each batch in the segment files, in offset order. */
function batchLayout(partitionDir: string): { file: string; position: number; size: number; baseOffset: number }[] {
  const out: { file: string; position: number; size: number; baseOffset: number }[] = [];
  for (const name of readdirSync(partitionDir).filter((n) => n.endsWith('.log')).sort()) {
    const data = readFileSync(join(partitionDir, name));
    for (let pos = 0; pos + 12 <= data.length; pos += data.readInt32BE(pos + 8) + 12) {
      out.push({ file: join(partitionDir, name), position: pos, size: data.readInt32BE(pos + 8) + 12, baseOffset: Number(data.readBigInt64BE(pos)) });
    }
  }
  return out;
}

/** Reads the whole log back and checks it is a prefix of what was written (the leader epoch field is outside the CRC, so masked). */
function checkPrefix(log: PartitionLog, written: Written): void {
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const { records } = log.read(offset, 1 << 20, log.logEndOffset, true);
    expect(records.length).toBeGreaterThan(0);
    for (let pos = 0; pos < records.length; ) {
      const size = records.readInt32BE(pos + 8) + 12;
      const base = Number(records.readBigInt64BE(pos));
      expect(base).toBe(offset);
      const expected = written.batches.get(base);
      expect(expected, `batch at ${base}`).toBeDefined();
      const got = Buffer.from(records.subarray(pos, pos + size));
      got.writeInt32BE(expected!.readInt32BE(BatchOffsets.partitionLeaderEpoch), BatchOffsets.partitionLeaderEpoch);
      expect(got.equals(expected!)).toBe(true);
      offset = base + expected!.readInt32BE(BatchOffsets.lastOffsetDelta) + 1;
      pos += size;
    }
  }
}

function runScenario(
  appends: AppendSpec[],
  flushAt: number,
  damage: { mode: 'truncate' | 'flip'; at: number; xor: number },
  anywhere: boolean,
): void {
  const live = join(root.path, `live-${Math.random().toString(36).slice(2)}`);
  const crashed = `${live}-crashed`;
  const manager = newManager(live);
  manager.startup();
  const log = manager.getOrCreateLog(TOPIC, 0);
  const written = appendAll(log, appends, flushAt, manager);
  const durableOffset = log.recoveryPoint;
  cpSync(live, crashed, { recursive: true }); // the files as a crash leaves them: no clean marker
  manager.shutdown();
  rmSync(live, { recursive: true });

  const partitionDir = join(crashed, `${TOPIC}-0`);
  if (anywhere) rmSync(join(crashed, RECOVERY_POINT_CHECKPOINT_FILE), { force: true });
  // Without a recovery point every byte is suspect; otherwise only bytes past the last fsync can be damaged.
  const candidates = batchLayout(partitionDir).filter((b) => anywhere || b.baseOffset >= durableOffset);
  const total = candidates.reduce((n, b) => n + b.size, 0);
  let damagedBatchBase = Infinity;
  if (total > 0) {
    let at = damage.at % total;
    const victim = candidates.find((b) => (at < b.size ? true : ((at -= b.size), false)))!;
    damagedBatchBase = victim.baseOffset;
    if (damage.mode === 'truncate') {
      truncateSync(victim.file, victim.position + at);
    } else {
      const data = readFileSync(victim.file);
      data[victim.position + at]! ^= damage.xor;
      writeFileSync(victim.file, data);
    }
  }

  const restarted = newManager(crashed);
  restarted.startup();
  const recovered = restarted.getLog(TOPIC, 0)!;
  try {
    expect(recovered.logEndOffset).toBeGreaterThanOrEqual(Math.min(written.flushedOffset, damagedBatchBase));
    if (!anywhere) expect(recovered.logEndOffset).toBeGreaterThanOrEqual(written.flushedOffset);
    if (damage.mode === 'truncate' && total > 0 && !anywhere) expect(recovered.logEndOffset).toBe(damagedBatchBase);
    checkPrefix(recovered, written);
    for (const entry of recovered.leaderEpochCache.entries()) expect(entry.startOffset).toBeLessThan(recovered.logEndOffset);
    const leo = recovered.logEndOffset;
    expect(recovered.appendAsLeader(makeBatch({ records: [{ value: Buffer.from('after') }] }), 9).firstOffset).toBe(leo);
    expect(recovered.read(leo, 1 << 20, leo + 1, true).firstOffset).toBe(leo);
  } finally {
    restarted.shutdown();
  }
}

describe('crash recovery (property)', () => {
  const scenario = fc.tuple(
    fc.array(appendArb, { minLength: 1, maxLength: 24 }),
    fc.nat(),
    fc.record({ mode: fc.constantFrom('truncate' as const, 'flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  );

  it('keeps every flushed batch and a valid prefix after a torn or corrupted unflushed tail', () => {
    fc.assert(
      fc.property(scenario, ([appends, flushSeed, damage]) => runScenario(appends, flushSeed % (appends.length + 1), damage, false)),
      { seed: 20261130, numRuns: 40 },
    );
  });

  it('recovers a valid prefix from a byte flipped anywhere when no recovery point was checkpointed', () => {
    fc.assert(
      fc.property(scenario, ([appends, flushSeed, damage]) =>
        runScenario(appends, flushSeed % (appends.length + 1), { ...damage, mode: 'flip' }, true),
      ),
      { seed: 424242, numRuns: 40 },
    );
  });
});
