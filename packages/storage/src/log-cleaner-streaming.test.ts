import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CompressionType, decodeRecordSet, encodeRecordBatch, type CompressionCodec } from '@gregor/protocol';
import { CompactedBatchLayout, encodeCompactedBatch, LogCleaner, type Kept, type KeptUnit } from './log-cleaner.js';
import { PartitionLog } from './log.js';
import { CLEANED_DIR } from './segment-swap.js';
import { tempDir, testConfig, testLogger } from './test-batches.js';

/**
 * The cleaner's layout as it was when it built the whole cleaned segment in memory (all kept units first, then the
 * batches): the streamed CompactedBatchLayout must produce the same bytes.
 */
function inMemoryLayout(units: readonly KeptUnit[], start: number, end: number, emptyTimestamp: number): Buffer[] {
  const out: Buffer[] = [];
  let cursor = start;
  let plain: Kept[] = [];
  const coverUpTo = (gapEnd: number) => {
    for (let i = 0; i < plain.length; ) {
      let j = i + 1;
      while (j < plain.length && j - i < 500 && plain[j]!.compression === plain[i]!.compression) j++;
      const batchEnd = j === plain.length ? gapEnd - 1 : plain[j - 1]!.offset;
      out.push(encodeCompactedBatch(cursor, batchEnd, plain.slice(i, j), emptyTimestamp, plain[i]!.compression));
      cursor = batchEnd + 1;
      i = j;
    }
    plain = [];
    if (cursor < gapEnd) out.push(encodeCompactedBatch(cursor, gapEnd - 1, [], emptyTimestamp));
    cursor = gapEnd;
  };
  const lastOfProducer = new Map<number, KeptUnit>();
  for (const u of units) if (u.kind === 'producer-batch') lastOfProducer.set(u.producer.producerId, u);
  for (const u of units) {
    if (u.kind === 'record') {
      plain.push(u.kept);
      continue;
    }
    if (u.kept.length === 0 && lastOfProducer.get(u.producer.producerId) !== u) continue;
    coverUpTo(u.baseOffset);
    out.push(encodeCompactedBatch(u.baseOffset, u.lastOffset, u.kept, emptyTimestamp, u.compression, u.producer));
    cursor = u.lastOffset + 1;
  }
  coverUpTo(end);
  return out;
}

/** A deterministic pseudo-random generator (mulberry32), so a failure can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Units as a cleaning pass yields them: plain kept records and idempotent batches (some emptied), with gaps. */
function randomUnits(seed: number): { units: KeptUnit[]; start: number; end: number } {
  const next = rng(seed);
  const codecs: CompressionCodec[] = [CompressionType.none, CompressionType.gzip, CompressionType.lz4];
  const start = Math.floor(next() * 100);
  let offset = start;
  const units: KeptUnit[] = [];
  const count = 1 + Math.floor(next() * 1500);
  const keptAt = (o: number, compression: CompressionCodec): Kept => ({
    offset: o,
    compression,
    record: { offset: o, timestamp: 1_000 + o, key: Buffer.from(`k${o % 37}`), value: next() < 0.1 ? null : Buffer.from(`v${o}`), headers: [] },
  });
  for (let i = 0; i < count; i++) {
    offset += Math.floor(next() * 4); // dropped records before it
    // Long runs of one codec, so batches fill up to their 500 records.
    const compression = codecs[Math.floor(i / 300 + next() * 1.2) % codecs.length]!;
    if (next() < 0.05) {
      const size = 1 + Math.floor(next() * 5);
      const kept: Kept[] = [];
      for (let o = offset; o < offset + size; o++) if (next() < 0.4) kept.push(keptAt(o, compression));
      const producerId = Math.floor(next() * 3);
      units.push({ kind: 'producer-batch', baseOffset: offset, lastOffset: offset + size - 1, producer: { producerId, producerEpoch: 0, baseSequence: offset }, compression, kept });
      offset += size;
    } else {
      units.push({ kind: 'record', kept: keptAt(offset, compression) });
      offset++;
    }
  }
  return { units, start, end: offset + Math.floor(next() * 5) };
}

describe('CompactedBatchLayout (the cleaned segment, streamed)', () => {
  it('writes the same batches, byte for byte, as the in-memory layout did', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const { units, start, end } = randomUnits(seed);
      const lastBatchOfProducer = new Map<number, number>();
      for (const u of units) if (u.kind === 'producer-batch') lastBatchOfProducer.set(u.producer.producerId, u.baseOffset);
      const streamed: Buffer[] = [];
      const layout = new CompactedBatchLayout(start, 4242, lastBatchOfProducer, (b) => streamed.push(b));
      for (const u of units) layout.add(u);
      layout.finish(end);
      const expected = inMemoryLayout(units, start, end, 4242);
      expect(streamed.length, `seed ${seed}`).toBe(expected.length);
      expect(Buffer.concat(streamed).equals(Buffer.concat(expected)), `seed ${seed}`).toBe(true);
    }
  });

  it('hands each batch out as soon as it is complete: at most one batch of records is held', () => {
    const held: number[] = [];
    let added = 0;
    const emitted: Buffer[] = [];
    const layout = new CompactedBatchLayout(0, 0, new Map(), (b) => {
      emitted.push(b);
      held.push(added);
    });
    for (let o = 0; o < 2_000; o++) {
      layout.add({ kind: 'record', kept: { offset: o, compression: CompressionType.none, record: { offset: o, timestamp: o, key: Buffer.from(`k${o}`), value: Buffer.from('v'), headers: [] } } });
      added++;
    }
    layout.finish(2_000);
    // Batches of 500: each emitted when the 501st record arrives, not at the end.
    expect(held).toEqual([500, 1000, 1500, 2000]);
    expect(emitted).toHaveLength(4);
  });
});

describe('LogCleaner writes the cleaned segment as it reads', () => {
  let dir: { path: string; cleanup(): void };
  const opened: PartitionLog[] = [];
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    for (const log of opened.splice(0)) log.close();
    dir.cleanup();
  });

  const openLog = () => {
    const log = new PartitionLog({ dir: join(dir.path, 'kv-0'), topic: 'kv', partition: 0, config: testConfig({ segmentBytes: 64 * 1024, fileDeleteDelayMs: 0 }), logger: testLogger(), hadCleanShutdown: true });
    opened.push(log);
    return log;
  };
  const put = (log: PartitionLog, key: string, value: string | null, compression: CompressionCodec = CompressionType.none) => {
    const t = Date.now();
    log.appendAsLeader(encodeRecordBatch({ baseOffset: 0, compression, firstTimestamp: t, records: [{ key: Buffer.from(key), value: value === null ? null : Buffer.from(value), headers: [], timestamp: t }] }), 0);
    log.updateHighWatermark(log.logEndOffset);
  };
  const cleaner = () => new LogCleaner({ logs: () => opened, isCompacted: () => true, deleteRetentionMs: () => 86_400_000, intervalMs: 1000, logger: testLogger() });

  it('the segment grows in the log\'s cleaned dir while the pass runs, and is swapped in (nothing left aside)', async () => {
    const log = openLog();
    // ~6 MB over many segments, 3,000 keys: the cleaned segment is written in several appends.
    const value = 'x'.repeat(1000);
    for (let i = 0; i < 6_000; i++) put(log, `k${i % 3_000}`, `${i}:${value}`, i % 1000 < 500 ? CompressionType.none : CompressionType.gzip);
    const end = log.segmentBaseOffsets().at(-1)!;
    let turnsWithAsideSegment = 0;
    let done = false;
    const watch = () => {
      if (existsSync(join(log.dir, CLEANED_DIR))) turnsWithAsideSegment++;
      if (!done) setImmediate(watch);
    };
    setImmediate(watch);
    const result = await cleaner().cleanAsync(log);
    done = true;
    expect(result!.recordsAfter).toBeLessThan(result!.recordsBefore);
    expect(turnsWithAsideSegment).toBeGreaterThan(2); // the aside segment existed across several turns of the event loop
    expect(existsSync(join(log.dir, CLEANED_DIR))).toBe(false);
    expect(readdirSync(log.dir).filter((n) => n.endsWith('.swap'))).toEqual([]);
    // Below `end` each key's latest value only, at its own offset.
    let position = log.logStartOffset;
    const seen = new Map<string, number>();
    while (position < end) {
      const { records } = log.read(position, 1 << 20, end, true);
      for (const b of decodeRecordSet(records)) {
        for (const r of b.records) {
          const key = r.key!.toString();
          expect(seen.has(key)).toBe(false);
          seen.set(key, r.offset);
        }
        position = b.baseOffset + b.lastOffsetDelta + 1;
      }
    }
    // Key k<j> was last written at offset j + 3000.
    for (const [key, offset] of seen) expect(offset).toBe(Number(key.slice(1)) + 3_000);
    expect(seen.size).toBe(Math.min(3_000, end - 3_000));
  });

  it('a pass stopped half way removes what it had written aside; the log is unchanged', async () => {
    const log = openLog();
    for (let i = 0; i < 2_000; i++) put(log, `k${i % 50}`, `v${i}`.padEnd(500, '.'));
    const bases = log.segmentBaseOffsets();
    const c = cleaner();
    const cleaning = c.cleanAsync(log);
    // Let it reach the second pass (the aside segment exists), then stop it.
    for (let i = 0; i < 200 && !existsSync(join(log.dir, CLEANED_DIR)); i++) await new Promise((r) => setImmediate(r));
    expect(existsSync(join(log.dir, CLEANED_DIR))).toBe(true);
    c.shutdown();
    expect(await cleaning).toBeNull();
    expect(existsSync(join(log.dir, CLEANED_DIR))).toBe(false);
    expect(log.segmentBaseOffsets()).toEqual(bases);
  });
});
