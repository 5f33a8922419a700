import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CompressionType, decodeRecordSet, encodeRecordBatch } from '@gregor/protocol';
import { LogCleaner } from './log-cleaner.js';
import { PartitionLog } from './log.js';
import { tempDir, testConfig, testLogger } from './test-batches.js';

let dir: { path: string; cleanup(): void };
const opened: PartitionLog[] = [];
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  for (const log of opened.splice(0)) log.close();
  dir.cleanup();
});

function openLog(hadCleanShutdown = true): PartitionLog {
  const log = new PartitionLog({ dir: join(dir.path, 'kv-0'), topic: 'kv', partition: 0, config: testConfig({ segmentBytes: 4096, fileDeleteDelayMs: 0 }), logger: testLogger(), hadCleanShutdown });
  opened.push(log);
  return log;
}

function put(log: PartitionLog, key: string, value: string | null, timestamp = Date.now()): void {
  const batch = encodeRecordBatch({
    baseOffset: 0,
    compression: CompressionType.none,
    firstTimestamp: timestamp,
    records: [{ key: Buffer.from(key), value: value === null ? null : Buffer.from(value), headers: [], timestamp }],
  });
  log.appendAsLeader(batch, 0);
  log.highWatermark = log.logEndOffset;
}

function readAll(log: PartitionLog): { offset: number; key: string; value: string | null }[] {
  const out: { offset: number; key: string; value: string | null }[] = [];
  let position = log.logStartOffset;
  while (position < log.logEndOffset) {
    const { records } = log.read(position, 1 << 20, log.logEndOffset, true);
    for (const b of decodeRecordSet(records)) {
      for (const r of b.records) out.push({ offset: r.offset, key: r.key!.toString(), value: r.value?.toString() ?? null });
      position = b.baseOffset + b.lastOffsetDelta + 1;
    }
  }
  return out;
}

const cleaner = (retentionMs = 86_400_000) =>
  new LogCleaner({ logs: () => opened, isCompacted: () => true, deleteRetentionMs: () => retentionMs, intervalMs: 1000, logger: testLogger() });

describe('LogCleaner', () => {
  it('keeps the latest value of each key, at its own offset, and the log stays readable after a restart', () => {
    const log = openLog();
    for (let i = 0; i < 400; i++) put(log, `k${i % 10}`, `v${i}`);
    const before = readAll(log);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(3);
    const result = cleaner().clean(log)!;
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    const after = readAll(log);
    // Cleaned segments hold one record per key; the active segment is untouched.
    const latest = new Map(before.map((r) => [r.key, r]));
    const active = log.segmentBaseOffsets().at(-1)!;
    for (const r of after) if (r.offset < active) expect(latest.get(r.key)).toEqual(r);
    expect(new Map(after.map((r) => [r.key, r.value]))).toEqual(new Map([...latest].map(([k, r]) => [k, r.value])));
    expect(log.logEndOffset).toBe(400);
    expect(readdirSync(join(dir.path, 'kv-0')).some((n) => n.endsWith('.swap') || n === 'cleaned')).toBe(false);
    // Reopen with a recovery scan of everything: the gaps inside cleaned batches are not damage.
    log.close();
    opened.length = 0;
    const again = openLog(false);
    expect(readAll(again)).toEqual(after);
    expect(again.logEndOffset).toBe(400);
  });

  it('drops tombstones older than delete.retention.ms and keeps recent ones', () => {
    const log = openLog();
    const old = Date.now() - 10_000;
    for (let i = 0; i < 300; i++) put(log, `k${i % 5}`, `v${i}`, old);
    put(log, 'k0', null, old);
    put(log, 'k1', null);
    for (let i = 0; i < 100; i++) put(log, `filler${i}`, 'x');
    cleaner(5_000).clean(log);
    const keys = new Map(readAll(log).map((r) => [r.key, r.value]));
    expect(keys.has('k0')).toBe(false);
    expect(keys.get('k1')).toBeNull();
    expect(keys.get('k2')).toBe('v297');
  });
});
