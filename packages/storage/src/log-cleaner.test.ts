import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CompressionType, decodeRecordSet, encodeRecordBatch, forEachBatch, type CompressionCodec } from '@gregor/protocol';
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

function put(log: PartitionLog, key: string, value: string | null, timestamp = Date.now(), compression: CompressionCodec = CompressionType.none): void {
  const batch = encodeRecordBatch({
    baseOffset: 0,
    compression,
    firstTimestamp: timestamp,
    records: [{ key: Buffer.from(key), value: value === null ? null : Buffer.from(value), headers: [], timestamp }],
  });
  log.appendAsLeader(batch, 0);
  log.updateHighWatermark(log.logEndOffset);
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

const cleaner = (retentionMs = 86_400_000, maxDecompressedBytes?: number) =>
  new LogCleaner({
    logs: () => opened,
    isCompacted: () => true,
    deleteRetentionMs: () => retentionMs,
    intervalMs: 1000,
    logger: testLogger(),
    ...(maxDecompressedBytes !== undefined ? { maxDecompressedBytes: () => maxDecompressedBytes } : {}),
  });

/** The codec of every batch below `end`, as stored. */
function codecsBelow(log: PartitionLog, end: number): number[] {
  const { records } = log.read(log.logStartOffset, 1 << 24, end, true);
  const codecs: number[] = [];
  forEachBatch(records, (h) => void codecs.push(h.compression));
  return codecs;
}

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

  it("keeps idempotent producers' batch headers (id, epoch, sequences), so a replay of the cleaned log dedupes their last batches", () => {
    const log = openLog();
    const seq = new Map<number, number>();
    const produce = (producerId: number, keys: string[]) => {
      const baseSequence = seq.get(producerId) ?? 0;
      seq.set(producerId, baseSequence + keys.length);
      const t = Date.now();
      const batch = encodeRecordBatch({
        baseOffset: 0,
        compression: CompressionType.none,
        firstTimestamp: t,
        producerId,
        producerEpoch: 2,
        baseSequence,
        records: keys.map((k) => ({ key: Buffer.from(k), value: Buffer.from(`${producerId}:${k}`), headers: [], timestamp: t })),
      });
      log.appendAsLeader(batch, 0);
      log.updateHighWatermark(log.logEndOffset);
      return batch;
    };
    // Producer 7 writes early and stops (its last batch's keys are overwritten later); producer 8 and plain writes go on.
    for (let i = 0; i < 20; i++) produce(7, [`a${i % 4}`, `b${i % 3}`]);
    const lastOf7 = produce(7, ['a0', 'a1', 'a2']);
    for (let i = 0; i < 150; i++) {
      if (i % 3 === 0) put(log, `a${i % 4}`, `plain${i}`);
      else produce(8, [`c${i % 5}`]);
    }
    const sequences = () => {
      const out = new Map<number, string>();
      let position = log.logStartOffset;
      while (position < log.logEndOffset) {
        const { records } = log.read(position, 1 << 20, log.logEndOffset, true);
        for (const b of decodeRecordSet(records)) {
          for (const r of b.records) out.set(r.offset, b.producerId < 0 ? 'none' : `${b.producerId}/${b.producerEpoch}/${b.baseSequence + (r.offset - b.baseOffset)}`);
          position = b.baseOffset + b.lastOffsetDelta + 1;
        }
      }
      return out;
    };
    const original = sequences();
    const expected = new Map([...log.producerState.activeProducers()].map(([id, e]) => [id, { epoch: e.producerEpoch, lastSeq: e.lastSeq, lastOffset: e.lastDataOffset }]));
    const result = cleaner().clean(log)!;
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    // Every kept record still carries its producer, epoch and own sequence number.
    const kept = sequences();
    expect(kept.size).toBe(result.recordsAfter + (log.logEndOffset - log.segmentBaseOffsets().at(-1)!));
    for (const [offset, id] of kept) expect(id).toBe(original.get(offset));

    // Lose every snapshot and reload without a clean shutdown: the state comes from replaying the cleaned log alone.
    log.close();
    opened.length = 0;
    for (const f of readdirSync(join(dir.path, 'kv-0'))) if (f.endsWith('.snapshot')) rmSync(join(dir.path, 'kv-0', f));
    const again = openLog(false);
    const rebuilt = new Map([...again.producerState.activeProducers()].map(([id, e]) => [id, { epoch: e.producerEpoch, lastSeq: e.lastSeq, lastOffset: e.lastDataOffset }]));
    expect(rebuilt).toEqual(expected);
    const retry = again.appendAsLeader(lastOf7, 0);
    expect(retry).toMatchObject({ duplicate: true, lastOffset: expected.get(7)!.lastOffset });
  });

  it.each([
    ['gzip', CompressionType.gzip],
    ['snappy', CompressionType.snappy],
    ['lz4', CompressionType.lz4],
    ['zstd', CompressionType.zstd],
  ] as const)('reads %s batches and rewrites them with the same codec', (_name, compression) => {
    const log = openLog();
    // Keys u* are last written early, so their latest records stay in the cleaned segments.
    for (let i = 0; i < 400; i++) put(log, i < 200 ? `u${i % 50}` : `k${i % 10}`, `v${i}-${'x'.repeat(40)}`, Date.now(), compression);
    const before = readAll(log);
    const result = cleaner().clean(log)!;
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    const active = log.segmentBaseOffsets().at(-1)!;
    expect(readAll(log).filter((r) => r.offset < active).length).toBeGreaterThan(0);
    expect(new Set(codecsBelow(log, active))).toEqual(new Set([compression]));
    const latest = new Map(before.map((r) => [r.key, r.value]));
    expect(new Map(readAll(log).map((r) => [r.key, r.value]))).toEqual(latest);
  });

  it('keeps each record in a batch of its source batch codec when codecs are mixed', () => {
    const log = openLog();
    const codecs = [CompressionType.zstd, CompressionType.snappy, CompressionType.none];
    for (let i = 0; i < 300; i++) put(log, `k${i}`, `v${i}`, Date.now(), codecs[Math.floor(i / 100)]!);
    for (let i = 0; i < 300; i += 2) put(log, `k${i}`, `w${i}`, Date.now(), CompressionType.lz4); // every other key rewritten
    cleaner().clean(log);
    const { records } = log.read(0, 1 << 24, log.segmentBaseOffsets().at(-1)!, true);
    for (const batch of decodeRecordSet(records)) {
      for (const r of batch.records) {
        const expected = r.offset >= 300 ? CompressionType.lz4 : codecs[Math.floor(r.offset / 100)];
        expect(batch.compression, `offset ${r.offset}`).toBe(expected);
      }
    }
  });

  it('refuses a batch inflating past maxDecompressedBytes: that pass fails, the log is untouched', () => {
    const log = openLog();
    for (let i = 0; i < 100; i++) put(log, `k${i % 10}`, `v${i}`);
    const bomb = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.zstd, firstTimestamp: 1, records: [{ key: Buffer.from('k0'), value: Buffer.alloc(8 << 20), headers: [], timestamp: 1 }] });
    log.appendAsLeader(bomb, 0);
    log.updateHighWatermark(log.logEndOffset);
    for (let i = 0; i < 300; i++) put(log, `k${i % 10}`, `v${i}`);
    const before = readAll(log);
    expect(() => cleaner(86_400_000, 1 << 20).clean(log)).toThrow(expect.objectContaining({ code: 2, message: expect.stringContaining('1048576-byte decompression limit') }));
    expect(readAll(log)).toEqual(before);
  });
});

describe('LogCleaner off the event loop', () => {
  it('cleanAsync gives the event loop a turn after every chunk read, and ends as clean() does', async () => {
    const log = openLog();
    for (let i = 0; i < 400; i++) put(log, `k${i % 10}`, `v${i}`);
    // Below the active segment, only the latest record of each key (up to the HW, here the LEO) stays.
    const end = log.segmentBaseOffsets().at(-1)!;
    const latest = new Map(readAll(log).map((r) => [r.key, r.offset]));
    const expected = readAll(log).filter((r) => r.offset >= end || latest.get(r.key) === r.offset);
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const result = await cleaner().cleanAsync(log);
    done = true;
    expect(result!.segments).toBeGreaterThan(3);
    // Two passes (latest offsets, then the rewrite), one chunk per segment each.
    expect(turns).toBeGreaterThanOrEqual(2 * result!.segments);
    expect(readAll(log)).toEqual(expected);
  });

  it('a truncation while it yields: nothing is swapped in, the next pass cleans', async () => {
    const log = openLog();
    for (let i = 0; i < 400; i++) put(log, `k${i % 10}`, `v${i}`);
    const c = cleaner();
    const bases = log.segmentBaseOffsets();
    const cleaning = c.cleanAsync(log);
    await new Promise((r) => setImmediate(r));
    log.truncateTo(log.logEndOffset - 1); // a follower's truncation (KIP-101), in the active segment
    expect(await cleaning).toBeNull();
    expect(log.segmentBaseOffsets()).toEqual(bases);
    expect((await c.cleanAsync(log))!.recordsAfter).toBeLessThan(400);
  });

  it('shutdown stops a pass at its next yield and leaves the log as it was', async () => {
    const log = openLog();
    for (let i = 0; i < 400; i++) put(log, `k${i % 10}`, `v${i}`);
    const before = readAll(log);
    const c = cleaner();
    const cleaning = c.cleanAll();
    c.shutdown();
    await cleaning;
    expect(readAll(log)).toEqual(before);
  });
});
