import type { BatchHeader } from '@gregor/protocol';
import type { ProducerStateManager } from './producer-state-manager.js';
import type { LogSegment } from './segment.js';

/** Batch headers handed to the producer state at once when it is rebuilt from the log. */
const REPLAY_CHUNK = 1000;

/**
 * Brings producer state to `lastOffset` (Kafka 2.4's Log.rebuildProducerState): from the newest snapshot at or
 * below it, replaying the batches after it as replicated appends, then a snapshot at `lastOffset`. A log with no
 * snapshot after a clean shutdown (written before gregor kept producer state) is not scanned: empty snapshots go
 * at the last two segment bases and the end instead. `segments` ascending.
 */
export function rebuildProducerState(
  ps: ProducerStateManager,
  segments: readonly LogSegment[],
  logStartOffset: number,
  lastOffset: number,
  reloadFromCleanShutdown: boolean,
  nowMs: number,
): void {
  const bases = segments.map((s) => s.baseOffset);
  const offsetsToSnapshot = new Set([...bases.slice(-2), lastOffset]);
  if (reloadFromCleanShutdown && ps.latestSnapshotOffset() === null) {
    for (const offset of [...offsetsToSnapshot].sort((a, b) => a - b)) {
      ps.updateMapEndOffset(offset);
      ps.takeSnapshot();
    }
    return;
  }
  // A log that had no producers before truncating has none after it: skip the reload.
  const isEmptyBeforeTruncation = ps.isEmpty && ps.mapEndOffset >= lastOffset;
  ps.truncateAndReload(logStartOffset, lastOffset, nowMs);
  if (lastOffset > ps.mapEndOffset && !isEmptyBeforeTruncation) {
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      const end = segments[i + 1]?.baseOffset ?? Infinity;
      if (end <= ps.mapEndOffset || segment.baseOffset >= lastOffset) continue;
      const start = Math.max(segment.baseOffset, ps.mapEndOffset, logStartOffset);
      ps.updateMapEndOffset(start);
      if (offsetsToSnapshot.has(segment.baseOffset)) ps.takeSnapshot();
      replayProducerBatches(ps, segment, start, lastOffset);
    }
  }
  ps.updateMapEndOffset(lastOffset);
  ps.takeSnapshot();
}

/** Feeds the batches of `segment` from the one holding `from` up to (not including) `to` into producer state. */
function replayProducerBatches(ps: ProducerStateManager, segment: LogSegment, from: number, to: number): void {
  const first = segment.translateOffset(from);
  if (!first) return;
  let chunk: BatchHeader[] = [];
  for (const h of segment.headersFrom(first.position)) {
    if (h.baseOffset >= to) break;
    chunk.push(h);
    if (chunk.length === REPLAY_CHUNK) {
      ps.loadBatches(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) ps.loadBatches(chunk);
}
