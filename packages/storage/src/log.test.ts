import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, statSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { pino } from 'pino';
import { join } from 'node:path';
import { BatchOffsets, computeBatchCrc, splitBatches } from '@gregor/protocol';
import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { PartitionLog, type PartitionLogOptions } from './log.js';
import { nodeIo, type SegmentIo } from './segment-io.js';
import type { LogConfig } from './log-config.js';
import { batchBaseOffsets, makeBatch, simpleBatch, tempDir, testConfig, testLogger } from './test-batches.js';

let dir: { path: string; cleanup(): void };
const opened: PartitionLog[] = [];
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  for (const log of opened.splice(0)) log.close();
  dir.cleanup();
});

function openLog(config: Partial<LogConfig> = {}, extra: Partial<PartitionLogOptions> = {}): PartitionLog {
  const log = new PartitionLog({
    dir: join(dir.path, 'orders-0'),
    topic: 'orders',
    partition: 0,
    config: testConfig(config),
    logger: testLogger(),
    hadCleanShutdown: true,
    ...extra,
  });
  opened.push(log);
  return log;
}

function reopen(log: PartitionLog, config: Partial<LogConfig> = {}, extra: Partial<PartitionLogOptions> = {}): PartitionLog {
  log.flush();
  log.close();
  return openLog(config, { recoveryPoint: log.recoveryPoint, logStartOffset: log.logStartOffset, ...extra });
}

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof GregorError ? err.code : -999;
  }
  return undefined;
}

describe('PartitionLog append and read', () => {
  it('assigns offsets and the leader epoch without breaking the CRC', () => {
    const log = openLog();
    expect(log.appendAsLeader(simpleBatch(3), 4)).toEqual({ firstOffset: 0, lastOffset: 2, maxTimestamp: 1_700_000_000_000, logAppendTimeMs: -1, duplicate: false });
    const producerBytes = Buffer.concat([simpleBatch(2), simpleBatch(1)]);
    const copy = Buffer.from(producerBytes);
    expect(log.appendAsLeader(producerBytes, 5)).toMatchObject({ firstOffset: 3, lastOffset: 5 });
    expect(producerBytes.equals(copy)).toBe(true);
    expect(log.logEndOffset).toBe(6);
    const { records, firstOffset } = log.read(0, 1 << 20, log.logEndOffset, false);
    expect(firstOffset).toBe(0);
    const headers = splitBatches(records);
    expect(headers.map((h) => [h.baseOffset, h.lastOffset, h.partitionLeaderEpoch])).toEqual([
      [0, 2, 4],
      [3, 4, 5],
      [5, 5, 5],
    ]);
    expect(log.leaderEpochCache.entries()).toEqual([
      { epoch: 4, startOffset: 0 },
      { epoch: 5, startOffset: 3 },
    ]);
  });

  it('appends in place (the broker hands over its request bytes) and keeps no reference to them after the append', () => {
    const log = openLog();
    const request = Buffer.concat([simpleBatch(2), simpleBatch(1)]);
    expect(log.appendAsLeader(request, 3, { inPlace: true })).toMatchObject({ firstOffset: 0, lastOffset: 2 });
    expect(splitBatches(request).map((h) => [h.baseOffset, h.partitionLeaderEpoch])).toEqual([
      [0, 3],
      [2, 3],
    ]);
    const stored = Buffer.from(request);
    request.fill(0xee); // the network layer reuses its buffer for the next request
    expect(log.read(0, 1 << 20, 3, false).records.equals(stored)).toBe(true);
    expect(log.appendAsLeader(simpleBatch(1), 3).firstOffset).toBe(3);
  });

  it('stamps LogAppendTime batches with the leader clock and a fresh CRC', () => {
    const log = openLog({ messageTimestampType: 'LogAppendTime' }, { time: () => 1_800_000_000_000 });
    const info = log.appendAsLeader(Buffer.concat([simpleBatch(2), simpleBatch(1)]), 0);
    expect(info).toMatchObject({ firstOffset: 0, lastOffset: 2, maxTimestamp: 1_800_000_000_000, logAppendTimeMs: 1_800_000_000_000 });
    const headers = splitBatches(log.read(0, 1 << 20, 3, false).records); // CRCs verified
    expect(headers.map((h) => [h.maxTimestamp, h.attributes & 0x08])).toEqual([
      [1_800_000_000_000, 8],
      [1_800_000_000_000, 8],
    ]);
    expect(log.offsetForTimestamp(1_799_999_999_999)).toEqual({ offset: 0, timestamp: 1_800_000_000_000 });
  });

  it('validates every batch before writing anything', () => {
    const log = openLog({ maxMessageBytes: 500 });
    log.appendAsLeader(simpleBatch(1), 0);
    const size = log.sizeInBytes();
    const good = simpleBatch(1);
    const corrupt = simpleBatch(1);
    corrupt[corrupt.length - 1]! ^= 1;
    expect(codeOf(() => log.appendAsLeader(Buffer.concat([good, corrupt]), 0))).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(() => log.appendAsLeader(corrupt, 0)).toThrow(CorruptDataError);
    expect(codeOf(() => log.appendAsLeader(Buffer.concat([good, simpleBatch(1, 600)]), 0))).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const lying = simpleBatch(2);
    lying.writeInt32BE(5, BatchOffsets.recordCount); // count no longer matches lastOffsetDelta (CRC recomputed below)
    lying.writeUInt32BE(computeBatchCrc(lying, 0, lying.length), BatchOffsets.crc);
    expect(codeOf(() => log.appendAsLeader(lying, 0))).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(codeOf(() => log.appendAsLeader(Buffer.concat([good, good.subarray(0, 20)]), 0))).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(log.logEndOffset).toBe(1);
    expect(log.sizeInBytes()).toBe(size);
    expect(log.appendAsLeader(Buffer.alloc(0), 0).firstOffset).toBe(-1);
  });

  it('walks every record before writing: a forged count, a keyless record on a compacted log or a stale timestamp appends nothing', () => {
    const log = openLog({ compact: true, messageTimestampDifferenceMaxMs: 60_000 }, { time: () => 1_700_000_000_000 });
    log.appendAsLeader(makeBatch({ records: [{ key: Buffer.from('a'), value: Buffer.from('1') }] }), 0);
    const size = log.sizeInBytes();
    const forged = makeBatch({ records: [{ key: Buffer.from('a'), value: Buffer.from('2') }] });
    forged.writeInt32BE(2 ** 31 - 2, BatchOffsets.lastOffsetDelta); // 2^31-1 records claimed, 1 held
    forged.writeInt32BE(2 ** 31 - 1, BatchOffsets.recordCount);
    forged.writeUInt32BE(computeBatchCrc(forged, 0, forged.length), BatchOffsets.crc);
    const keyed = makeBatch({ records: [{ key: Buffer.from('b'), value: Buffer.from('3') }] });
    expect(codeOf(() => log.appendAsLeader(Buffer.concat([keyed, forged]), 0))).toBe(ErrorCode.INVALID_RECORD);
    expect(codeOf(() => log.appendAsLeader(makeBatch({ records: [{ key: null, value: Buffer.from('x') }] }), 0))).toBe(ErrorCode.INVALID_RECORD);
    expect(codeOf(() => log.appendAsLeader(makeBatch({ records: [{ key: Buffer.from('c'), value: null }], firstTimestamp: 1_600_000_000_000 }), 0))).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(log.logEndOffset).toBe(1);
    expect(log.sizeInBytes()).toBe(size);
  });

  it("corrects a producer's wrong max timestamp (the time index trusts it) and keeps the CRC valid", () => {
    const log = openLog();
    const lying = makeBatch({ records: [{ value: Buffer.from('a') }, { value: Buffer.from('b'), timestampDelta: 5 }] });
    lying.writeBigInt64BE(BigInt(4_000_000_000_000), BatchOffsets.maxTimestamp); // far in the future
    lying.writeUInt32BE(computeBatchCrc(lying, 0, lying.length), BatchOffsets.crc);
    expect(log.appendAsLeader(lying, 0).maxTimestamp).toBe(1_700_000_000_005);
    const [stored] = splitBatches(log.read(0, 1 << 20, 2, false).records); // CRC verified
    expect(stored!.maxTimestamp).toBe(1_700_000_000_005);
    expect(log.offsetForTimestamp(1_700_000_000_001)).toEqual({ offset: 0, timestamp: 1_700_000_000_005 });
    expect(log.offsetForTimestamp(1_700_000_000_006)).toBeNull(); // the lie would have answered offset 0
  });

  it('refuses an append that would assign offsets beyond 2^53', () => {
    const log = openLog();
    log.truncateFullyAndStartAt(Number.MAX_SAFE_INTEGER - 1);
    expect(codeOf(() => log.appendAsLeader(simpleBatch(3), 0))).toBe(ErrorCode.INVALID_RECORD);
    expect(log.appendAsLeader(simpleBatch(2), 0).lastOffset).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('reads whole batches within maxBytes, at least one with minOneBatch, never at or past maxOffset', () => {
    const log = openLog();
    const batch = simpleBatch(2, 200); // offsets 0-1, 2-3, 4-5, 6-7
    for (let i = 0; i < 4; i++) log.appendAsLeader(batch, 0);
    const one = batch.length;
    expect(batchBaseOffsets(log.read(3, 10_000, 8, false).records)).toEqual([2, 4, 6]);
    expect(log.read(3, 10_000, 8, false).firstOffset).toBe(2);
    expect(batchBaseOffsets(log.read(0, one * 2 + 10, 8, false).records)).toEqual([0, 2]);
    expect(log.read(0, one - 1, 8, false).records.length).toBe(0);
    expect(batchBaseOffsets(log.read(0, one - 1, 8, true).records)).toEqual([0]);
    expect(batchBaseOffsets(log.read(0, 0, 8, true).records)).toEqual([0]);
    expect(batchBaseOffsets(log.read(0, 10_000, 5, false).records)).toEqual([0, 2]); // HW 5 splits batch 4-5
    expect(log.read(4, 10_000, 4, true).records.length).toBe(0);
    expect(log.read(8, 10_000, 8, true).records.length).toBe(0);
    expect(codeOf(() => log.read(9, 100, 9, true))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(codeOf(() => log.read(-1, 100, 9, true))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  it('rolls segments on segmentBytes and reads across them, also after a restart', () => {
    let log = openLog({ segmentBytes: 1500, indexIntervalBytes: 300 });
    const batch = simpleBatch(2, 100); // ~290 bytes: 5 per segment
    for (let i = 0; i < 23; i++) log.appendAsLeader(batch, 1);
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(4);
    expect(bases[0]).toBe(0);
    const files = readdirSync(log.dir);
    for (const base of bases) {
      const name = String(base).padStart(20, '0');
      expect(files).toContain(`${name}.log`);
      expect(files).toContain(`${name}.index`);
      expect(files).toContain(`${name}.timeindex`);
      expect(statSync(join(log.dir, `${name}.log`)).size).toBeLessThanOrEqual(1500);
    }
    expect(statSync(join(log.dir, `${String(bases[0]).padStart(20, '0')}.index`)).size).toBeGreaterThan(0);
    const check = (l: PartitionLog) => {
      for (let offset = 0; offset < 46; offset++) {
        const { records, firstOffset } = l.read(offset, 1, 46, true);
        expect(firstOffset).toBe(offset - (offset % 2));
        expect(batchBaseOffsets(records)).toEqual([offset - (offset % 2)]);
      }
      // One read stays within one segment.
      expect(batchBaseOffsets(l.read(0, 1 << 20, 46, false).records)).toEqual(
        Array.from({ length: bases[1]! / 2 }, (_, i) => i * 2),
      );
    };
    check(log);
    log = reopen(log, { segmentBytes: 1500, indexIntervalBytes: 300 });
    expect(log.logEndOffset).toBe(46);
    expect(log.segmentBaseOffsets()).toEqual(bases);
    check(log);
    expect(log.appendAsLeader(batch, 1).firstOffset).toBe(46);
  });

  it('rolls on segmentMs and on a full index', () => {
    let now = 1_000_000;
    const log = openLog({ segmentMs: 1000 }, { time: () => now });
    log.appendAsLeader(simpleBatch(1), 0);
    now += 500;
    log.appendAsLeader(simpleBatch(1), 0);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    now += 600;
    log.appendAsLeader(simpleBatch(1), 0);
    expect(log.segmentBaseOffsets()).toEqual([0, 2]);
    const small = openLogAt('small-0', { indexIntervalBytes: 0, segmentIndexBytes: 24 });
    for (let i = 0; i < 8; i++) small.appendAsLeader(simpleBatch(1), 0);
    expect(small.segmentBaseOffsets().length).toBeGreaterThan(1);
  });

  it('finds offsets by timestamp', () => {
    const log = openLog({ segmentBytes: 700 });
    const stamps = [1000, 2000, 1500, 3000, 2500, 4000];
    for (const ts of stamps) log.appendAsLeader(makeBatch({ records: [{ value: Buffer.alloc(200) }, { value: Buffer.alloc(10), timestampDelta: 5 }], firstTimestamp: ts }), 0);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(1);
    expect(log.offsetForTimestamp(0)).toEqual({ offset: 0, timestamp: 1005 });
    expect(log.offsetForTimestamp(1005)).toEqual({ offset: 0, timestamp: 1005 });
    expect(log.offsetForTimestamp(1006)).toEqual({ offset: 2, timestamp: 2005 });
    expect(log.offsetForTimestamp(2100)).toEqual({ offset: 6, timestamp: 3005 });
    expect(log.offsetForTimestamp(3500)).toEqual({ offset: 10, timestamp: 4005 });
    expect(log.offsetForTimestamp(4006)).toBeNull();
  });
});

describe('PartitionLog legacy offsets (ListOffsets v0)', () => {
  it("answers as Kafka's legacyFetchOffsetsBefore: segment base offsets by file mtime, then the log end, newest first", () => {
    const now = 5_000_000;
    const log = openLog({ segmentBytes: 700 }, { time: () => now });
    for (let i = 0; i < 6; i++) log.appendAsLeader(makeBatch({ records: [{ value: Buffer.alloc(200) }, { value: Buffer.alloc(10) }] }), 0);
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThanOrEqual(3);
    // Segment i was last modified at (i + 1) * 1000 s.
    bases.forEach((base, i) => utimesSync(join(dir.path, 'orders-0', `${String(base).padStart(20, '0')}.log`), (i + 1) * 1000, (i + 1) * 1000));
    const leo = log.logEndOffset;
    const newestFirst = [leo, ...[...bases].reverse()];
    expect(log.legacyOffsetsBefore(-1, 1)).toEqual([leo]);
    expect(log.legacyOffsetsBefore(-2, 1)).toEqual([0]);
    expect(log.legacyOffsetsBefore(-1, 100)).toEqual(newestFirst);
    expect(log.legacyOffsetsBefore(-2, 100)).toEqual([0]);
    // Before 2500 s: segments 0 (1000 s) and 1 (2000 s) qualify, the newest of them first.
    expect(log.legacyOffsetsBefore(2_500_000, 100)).toEqual([bases[1], bases[0]]);
    expect(log.legacyOffsetsBefore(2_500_000, 1)).toEqual([bases[1]]);
    expect(log.legacyOffsetsBefore(500_000, 100)).toEqual([]);
    // The log end is stamped now: a timestamp at or after it includes it.
    expect(log.legacyOffsetsBefore(now, 2)).toEqual([leo, bases[bases.length - 1]]);
  });

  it('leaves out the log end while the active segment is empty, and never goes below the log start', () => {
    const log = openLog();
    expect(log.legacyOffsetsBefore(-1, 10)).toEqual([0]);
    log.appendAsLeader(simpleBatch(3), 0);
    expect(log.legacyOffsetsBefore(-1, 10)).toEqual([3, 0]);
    const trimmed = reopen(log, {}, { logStartOffset: 2 });
    expect(trimmed.legacyOffsetsBefore(-2, 10)).toEqual([2]);
    expect(trimmed.legacyOffsetsBefore(-1, 10)).toEqual([3, 2]);
  });
});

describe('PartitionLog truncation and follower appends', () => {
  it('truncates to an offset, dropping the batch that holds it, and keeps appending from there', () => {
    const log = openLog({ segmentBytes: 800 });
    for (let e = 0; e < 6; e++) log.appendAsLeader(simpleBatch(3, 100), e); // epochs 0..5 at 0,3,...,15
    log.updateHighWatermark(18);
    const segments = log.segmentBaseOffsets().length;
    log.truncateTo(7);
    expect(log.logEndOffset).toBe(6);
    expect(log.segmentBaseOffsets().length).toBeLessThan(segments);
    expect(log.highWatermark).toBe(6);
    expect(log.leaderEpochCache.latestEpoch).toBe(1);
    expect(log.appendAsLeader(simpleBatch(1), 9).firstOffset).toBe(6);
    expect(batchBaseOffsets(log.read(6, 1 << 20, 100, false).records)).toEqual([6]);
    expect(batchBaseOffsets(log.read(0, 1 << 20, 100, false).records)).toEqual([0, 3]);
    log.truncateTo(100); // beyond LEO: nothing
    expect(log.logEndOffset).toBe(7);
  });

  it('truncates fully and starts again at a later offset', () => {
    const log = openLog();
    log.appendAsLeader(simpleBatch(5), 0);
    log.truncateFullyAndStartAt(100);
    expect([log.logStartOffset, log.logEndOffset, log.highWatermark]).toEqual([100, 100, 100]);
    expect(log.segmentBaseOffsets()).toEqual([100]);
    expect(log.leaderEpochCache.entries()).toEqual([]);
    expect(codeOf(() => log.read(0, 100, 200, true))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(log.appendAsLeader(simpleBatch(1), 1).firstOffset).toBe(100);
    const again = reopen(log);
    expect([again.logStartOffset, again.logEndOffset]).toEqual([100, 101]);
  });

  it('appends follower batches with their own offsets and epochs', () => {
    const log = openLog();
    const b0 = makeBatch({ records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }], baseOffset: 0, partitionLeaderEpoch: 3 });
    const b2 = makeBatch({ records: [{ value: Buffer.from('c') }], baseOffset: 2, partitionLeaderEpoch: 4 });
    expect(log.appendAsFollower(Buffer.concat([b0, b2]))).toEqual({ firstOffset: 0, lastOffset: 2 });
    expect(log.leaderEpochCache.entries()).toEqual([
      { epoch: 3, startOffset: 0 },
      { epoch: 4, startOffset: 2 },
    ]);
    expect(log.read(0, 1 << 20, 3, false).records.equals(Buffer.concat([b0, b2]))).toBe(true);
    expect(codeOf(() => log.appendAsFollower(b2))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const b5 = makeBatch({ records: [{ value: Buffer.from('d') }], baseOffset: 5, partitionLeaderEpoch: 4 });
    const b7 = makeBatch({ records: [{ value: Buffer.from('e') }], baseOffset: 7, partitionLeaderEpoch: 4 });
    expect(codeOf(() => log.appendAsFollower(Buffer.concat([b5, b7])))).toBe(ErrorCode.CORRUPT_MESSAGE);
    log.appendAsFollower(b5); // a gap starts a new segment
    expect(log.segmentBaseOffsets()).toEqual([0, 5]);
    expect(log.logEndOffset).toBe(6);
    expect(batchBaseOffsets(log.read(3, 1 << 20, 6, false).records)).toEqual([5]);
    const again = reopen(log, {}, { hadCleanShutdown: false, recoveryPoint: 0 });
    expect(again.logEndOffset).toBe(6);
  });

  it('appends a fetch answer as it came, leaving out its partial last batch (Kafka trimInvalidBytes)', () => {
    const log = openLog();
    const b0 = makeBatch({ records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }], baseOffset: 0, partitionLeaderEpoch: 1 });
    const b2 = makeBatch({ records: [{ value: Buffer.from('c') }], baseOffset: 2, partitionLeaderEpoch: 1 });
    expect(log.appendAsFollower(Buffer.concat([b0, b2.subarray(0, b2.length - 1)]))).toEqual({ firstOffset: 0, lastOffset: 1 });
    expect(log.appendAsFollower(b2.subarray(0, 20))).toEqual({ firstOffset: -1, lastOffset: -1 });
    expect(log.logEndOffset).toBe(2);
    expect(log.read(0, 1 << 20, 2, false).records.equals(b0)).toBe(true);
    expect(log.appendAsFollower(b2)).toEqual({ firstOffset: 2, lastOffset: 2 });
    // A damaged whole batch is still refused, partial tail or not.
    const bad = makeBatch({ records: [{ value: Buffer.from('d') }], baseOffset: 3, partitionLeaderEpoch: 1 });
    bad[bad.length - 1]! ^= 0xff;
    expect(codeOf(() => log.appendAsFollower(Buffer.concat([bad, b2.subarray(0, b2.length - 1)])))).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(log.logEndOffset).toBe(3);
  });
});

describe('PartitionLog retention', () => {
  it('deletes segments past retentionMs, only below the high watermark, never all', () => {
    const log = openLog({ segmentBytes: 700, retentionMs: 10_000 });
    for (let i = 0; i < 6; i++) log.appendAsLeader(simpleBatch(2, 100, 1000 + i), 0);
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(2);
    expect(log.deleteOldSegments(5000)).toBe(0); // nothing old enough
    expect(log.deleteOldSegments(100_000)).toBe(0); // HW is 0
    log.updateHighWatermark(bases[2]!);
    expect(log.deleteOldSegments(100_000)).toBe(2);
    expect(log.logStartOffset).toBe(bases[2]);
    expect(existsSync(join(log.dir, `${String(bases[0]).padStart(20, '0')}.log`))).toBe(false);
    expect(codeOf(() => log.read(0, 100, 100, true))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    log.updateHighWatermark(log.logEndOffset);
    const remaining = log.segmentBaseOffsets().length;
    expect(log.deleteOldSegments(100_000)).toBe(remaining);
    expect(log.segmentBaseOffsets()).toEqual([12]); // rolled an empty segment first
    expect([log.logStartOffset, log.logEndOffset]).toEqual([12, 12]);
    expect(log.appendAsLeader(simpleBatch(1), 0).firstOffset).toBe(12);
  });

  it('deletes the oldest segments while the log stays at or above retentionBytes', () => {
    const log = openLog({ segmentBytes: 700, retentionBytes: 1000 });
    for (let i = 0; i < 8; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    log.updateHighWatermark(log.logEndOffset);
    const before = log.sizeInBytes();
    const deleted = log.deleteOldSegments(Date.now());
    expect(deleted).toBeGreaterThan(0);
    expect(log.sizeInBytes()).toBeGreaterThanOrEqual(1000);
    expect(log.sizeInBytes()).toBeLessThan(before);
    expect(log.deleteOldSegments(Date.now())).toBe(0);
  });

  it('keeps deleted files as .deleted for fileDeleteDelayMs', async () => {
    const log = openLog({ segmentBytes: 700, retentionBytes: 0, fileDeleteDelayMs: 50 });
    for (let i = 0; i < 4; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    log.updateHighWatermark(log.logEndOffset);
    expect(log.deleteOldSegments(Date.now())).toBeGreaterThan(0);
    expect(readdirSync(log.dir).some((f) => f.endsWith('.log.deleted'))).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    expect(readdirSync(log.dir).some((f) => f.endsWith('.deleted'))).toBe(false);
  });
});

describe('PartitionLog: deleted segment files leave off the event loop', () => {
  it('with fileDeleteDelayMs 0 the unlink is asynchronous: the .deleted files are still there when the call returns, gone soon after', async () => {
    const log = openLog({ segmentBytes: 700, retentionBytes: 0, fileDeleteDelayMs: 0 });
    for (let i = 0; i < 4; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    log.updateHighWatermark(log.logEndOffset);
    expect(log.deleteOldSegments(Date.now())).toBeGreaterThan(0);
    expect(readdirSync(log.dir).some((f) => f.endsWith('.log.deleted'))).toBe(true);
    for (let i = 0; i < 100 && readdirSync(log.dir).some((f) => f.endsWith('.deleted')); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(log.dir).some((f) => f.endsWith('.deleted'))).toBe(false);
  });

  it('close removes the files still waiting for their delay, at once', () => {
    const log = openLog({ segmentBytes: 700, retentionBytes: 0, fileDeleteDelayMs: 60_000 });
    for (let i = 0; i < 4; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    log.updateHighWatermark(log.logEndOffset);
    expect(log.deleteOldSegments(Date.now())).toBeGreaterThan(0);
    expect(readdirSync(log.dir).some((f) => f.endsWith('.log.deleted'))).toBe(true);
    log.close();
    expect(readdirSync(log.dir).some((f) => f.endsWith('.deleted'))).toBe(false);
  });
});

describe('PartitionLog log start offset (DeleteRecords)', () => {
  it('raises the start up to the high watermark, deletes whole segments below it, keeps the rest readable', () => {
    const log = openLog({ segmentBytes: 700 });
    for (let i = 0; i < 8; i++) log.appendAsLeader(simpleBatch(2, 100), i < 3 ? 1 : 2);
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(3);
    log.updateHighWatermark(14);
    expect(codeOf(() => log.maybeIncrementLogStartOffset(15))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(log.logStartOffset).toBe(0);
    // An offset inside a segment: only the segments wholly below it go.
    const inside = bases[2]! + 1;
    expect(log.maybeIncrementLogStartOffset(inside)).toBe(true);
    expect(log.logStartOffset).toBe(inside);
    expect(log.segmentBaseOffsets()).toEqual(bases.slice(2));
    for (const b of bases.slice(0, 2)) expect(existsSync(join(log.dir, `${String(b).padStart(20, '0')}.log`))).toBe(false);
    expect(codeOf(() => log.read(inside - 1, 1000, 100, true))).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    // Reading at the new start returns the batch holding it (clients skip the records below their offset).
    expect(log.read(inside, 1000, 100, true).firstOffset).toBe(bases[2]);
    // Lower or equal: nothing changes.
    expect(log.maybeIncrementLogStartOffset(3)).toBe(false);
    expect(log.maybeIncrementLogStartOffset(inside)).toBe(false);
    expect(log.leaderEpochCache.entries()[0]!.startOffset).toBe(inside);
  });

  it('up to the log end: every inactive segment goes, the active one stays, appends continue', () => {
    const log = openLog({ segmentBytes: 700 });
    for (let i = 0; i < 5; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    log.updateHighWatermark(log.logEndOffset);
    expect(log.maybeIncrementLogStartOffset(log.logEndOffset)).toBe(true);
    expect(log.segmentBaseOffsets()).toHaveLength(1);
    expect([log.logStartOffset, log.logEndOffset]).toEqual([10, 10]);
    expect(log.read(10, 1000, 10, true).records.length).toBe(0);
    expect(log.appendAsLeader(simpleBatch(1), 0).firstOffset).toBe(10);
    // The start survives a restart through the checkpointed value.
    const again = reopen(log, { segmentBytes: 700 });
    expect(again.logStartOffset).toBe(10);
  });
});

describe('PartitionLog files', () => {
  it('rebuilds a missing or corrupt index at load', () => {
    let log = openLog({ segmentBytes: 1000, indexIntervalBytes: 100 });
    for (let i = 0; i < 10; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    const bases = log.segmentBaseOffsets();
    log.flush();
    log.close();
    unlinkSync(join(log.dir, `${String(bases[0]).padStart(20, '0')}.index`));
    writeFileSync(join(log.dir, `${String(bases[1]).padStart(20, '0')}.index`), Buffer.from([0, 0, 0, 9, 0, 0, 0x7f, 0]));
    log = openLog({ segmentBytes: 1000, indexIntervalBytes: 100 }, { recoveryPoint: 20 });
    expect(log.logEndOffset).toBe(20);
    for (let offset = 0; offset < 20; offset += 2) expect(log.read(offset, 1, 20, true).firstOffset).toBe(offset);
    expect(statSync(join(log.dir, `${String(bases[0]).padStart(20, '0')}.index`)).size).toBeGreaterThan(0);
  });

  it('recovers an unclean stop: cuts a torn tail, warns with what was dropped, rebuilds the epoch cache', () => {
    let log = openLog({ segmentBytes: 1000 });
    for (let i = 0; i < 7; i++) log.appendAsLeader(simpleBatch(2, 100), i < 4 ? 1 : 2);
    const bases = log.segmentBaseOffsets();
    log.flush();
    log.close();
    const lastFile = join(log.dir, `${String(bases.at(-1)).padStart(20, '0')}.log`);
    const size = statSync(lastFile).size;
    truncateSync(lastFile, size - 7);
    unlinkSync(join(log.dir, 'leader-epoch-checkpoint'));
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    log = openLog({ segmentBytes: 1000 }, { hadCleanShutdown: false, recoveryPoint: 0, logger });
    expect(log.logEndOffset).toBe(12);
    expect(log.leaderEpochCache.entries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 8 },
    ]);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, topic: 'orders', partition: 0, offset: 12, bytesDropped: simpleBatch(2, 100).length - 7 });
    expect(statSync(lastFile).size).toBe(size - simpleBatch(2, 100).length);
    expect(log.appendAsLeader(simpleBatch(1), 3).firstOffset).toBe(12);
  });

  it('rebuilds an unreadable leader-epoch-checkpoint from the batches', () => {
    let log = openLog();
    log.appendAsLeader(simpleBatch(2), 1);
    log.appendAsLeader(simpleBatch(2), 4);
    log.flush();
    log.close();
    writeFileSync(join(log.dir, 'leader-epoch-checkpoint'), '0\n3\n1 0\n');
    log = openLog({}, { recoveryPoint: 4 });
    expect(log.leaderEpochCache.entries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 4, startOffset: 2 },
    ]);
    expect(log.logEndOffset).toBe(4);
  });

  it('fails an append on ENOSPC with KAFKA_STORAGE_ERROR and leaves the log consistent', () => {
    let budget = Infinity;
    const io: SegmentIo = {
      ...nodeIo,
      writeSync(fd, buffer, offset, length, position) {
        if (budget <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        const n = nodeIo.writeSync(fd, buffer, offset, Math.min(length, budget), position);
        budget -= n;
        return n;
      },
    };
    const log = openLog({ indexIntervalBytes: 0 }, { io });
    for (let i = 0; i < 3; i++) log.appendAsLeader(simpleBatch(2, 100), 0);
    const size = log.sizeInBytes();
    budget = 100; // the next batch is torn part-way through
    expect(codeOf(() => log.appendAsLeader(simpleBatch(2, 100), 0))).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(log.logEndOffset).toBe(6);
    expect(log.sizeInBytes()).toBe(size);
    expect(statSync(join(log.dir, '00000000000000000000.log')).size).toBe(size);
    budget = Infinity; // space freed
    expect(log.appendAsLeader(simpleBatch(2, 100), 0).firstOffset).toBe(6);
    expect(batchBaseOffsets(log.read(0, 1 << 20, 8, false).records)).toEqual([0, 2, 4, 6]);
    const again = reopen(log, { indexIntervalBytes: 0 }, { hadCleanShutdown: false, recoveryPoint: 0 });
    expect(again.logEndOffset).toBe(8);
  });
});

function openLogAt(name: string, config: Partial<LogConfig>): PartitionLog {
  const log = new PartitionLog({ dir: join(dir.path, name), topic: 'small', partition: 0, config: testConfig(config), logger: testLogger() });
  opened.push(log);
  return log;
}
