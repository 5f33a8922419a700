import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptDataError, type Logger } from '@gregor/common';
import type { BatchHeader } from '@gregor/protocol';
import { DELETED_FILE_SUFFIX, INDEX_FILE_SUFFIX, LOG_FILE_SUFFIX, offsetFromFileName, TIME_INDEX_FILE_SUFFIX } from './file-names.js';
import { LEADER_EPOCH_CHECKPOINT_FILE, LeaderEpochCache, type CheckpointWriter } from './leader-epoch-cache.js';
import { recoverSegment, recoverSegments } from './recovery.js';
import { LogSegment, type SegmentOptions } from './segment.js';
import { CLEANED_DIR, completeSwaps } from './segment-swap.js';

export interface LoadSegmentsContext {
  topic: string;
  partition: number;
  logger: Logger;
  segmentOptions: SegmentOptions;
  nowMs: number;
  /** Offsets below it are known flushed: recovery after an unclean stop starts at its segment. */
  recoveryPoint: number;
  /** `.kafka_cleanshutdown` was there: no recovery scan, only indexes that fail to load are rebuilt. */
  hadCleanShutdown: boolean;
  /** Every batch a recovery scan finds sound (the leader epoch cache is rebuilt from them). */
  onBatch: (batch: BatchHeader) => void;
}

/**
 * Opens a partition directory's segments at startup (Kafka's Log.loadSegments): finishes or drops an interrupted
 * compaction, removes leftovers of deletions, then recovers the segments that may hold unflushed data, cutting the
 * log at the first damaged batch. Returns the segments, ascending, and whether any were recovered.
 */
export function loadSegments(dir: string, ctx: LoadSegmentsContext): { segments: LogSegment[]; recovered: boolean } {
  // An interrupted compaction: finish a committed swap, drop an uncommitted cleaned segment.
  if (existsSync(join(dir, CLEANED_DIR))) rmSync(join(dir, CLEANED_DIR), { recursive: true, force: true });
  completeSwaps(dir);
  const files = readdirSync(dir);
  const bases = new Set<number>();
  for (const name of files) {
    // Leftovers of deletions and checkpoint writes interrupted by a crash.
    if (name.endsWith(DELETED_FILE_SUFFIX) || name.endsWith('.tmp')) {
      rmSync(join(dir, name), { force: true });
      continue;
    }
    const base = offsetFromFileName(name);
    if (base !== null && name.endsWith(LOG_FILE_SUFFIX)) bases.add(base);
  }
  for (const name of files) {
    const base = offsetFromFileName(name);
    if (base !== null && (name.endsWith(INDEX_FILE_SUFFIX) || name.endsWith(TIME_INDEX_FILE_SUFFIX)) && !bases.has(base)) {
      rmSync(join(dir, name), { force: true });
    }
  }
  const sorted = [...bases].sort((a, b) => a - b);
  const segments = sorted.map((base) => new LogSegment(dir, base, ctx.segmentOptions, false, ctx.nowMs));
  const where = { topic: ctx.topic, partition: ctx.partition };

  // Segments that may hold unflushed data: the one containing the recovery point and all after it.
  let firstUnflushed = segments.length;
  if (!ctx.hadCleanShutdown) {
    firstUnflushed = segments.findIndex((_s, i) => (segments[i + 1]?.baseOffset ?? Infinity) > ctx.recoveryPoint);
    if (firstUnflushed < 0) firstUnflushed = segments.length;
  }
  for (const segment of segments.slice(0, firstUnflushed)) {
    if (!segment.loadIndexes()) {
      ctx.logger.info({ ...where, segment: segment.logPath }, 'rebuilding missing or corrupt index');
      const result = recoverSegment(segment, ctx.onBatch);
      if (result.truncatedBytes > 0) {
        ctx.logger.warn({ ...where, offset: result.nextOffset, bytesDropped: result.truncatedBytes, problem: result.problem }, 'damaged batch in a flushed segment; log truncated');
        firstUnflushed = segments.indexOf(segment) + 1;
        for (const later of segments.slice(firstUnflushed)) later.deleteFiles();
        segments.length = firstUnflushed;
        break;
      }
    }
  }
  const recovering = segments.slice(firstUnflushed);
  if (recovering.length > 0) {
    const keep = recoverSegments(recovering, { ...where, logger: ctx.logger, onBatch: ctx.onBatch });
    for (const later of recovering.slice(keep)) later.deleteFiles();
    segments.length = firstUnflushed + keep;
    for (const s of segments.slice(firstUnflushed)) s.flush();
  }
  return { segments, recovered: recovering.length > 0 };
}

/**
 * Opens a partition's leader-epoch-checkpoint. An unreadable one is dropped and the cache starts empty (`rebuilt`):
 * the epochs are in the batches themselves, so the caller rebuilds it with a full recovery scan.
 */
export function openLeaderEpochCache(
  dir: string,
  logEndOffset: () => number,
  writer: CheckpointWriter | null | undefined,
  where: { topic: string; partition: number; logger: Logger },
): { cache: LeaderEpochCache; rebuilt: boolean } {
  try {
    return { cache: new LeaderEpochCache(dir, logEndOffset, writer), rebuilt: false };
  } catch (err) {
    if (!(err instanceof CorruptDataError)) throw err;
    where.logger.warn({ topic: where.topic, partition: where.partition, err: err.message }, 'unreadable leader-epoch-checkpoint; rebuilding from the log');
    rmSync(join(dir, LEADER_EPOCH_CHECKPOINT_FILE), { force: true });
    return { cache: new LeaderEpochCache(dir, logEndOffset, writer), rebuilt: true };
  }
}
