import { wholeBatchesLength } from '@gregor/protocol';
import type { ReadBufferPool } from './read-buffer-pool.js';
import type { SegmentMap } from './segment-map.js';

/** Reads of a partition log's segments: fetch reads and the offset lookups of ListOffsets. */

/** The log's bounds a read is answered within. */
export interface LogBounds {
  logStartOffset: number;
  logEndOffset: number;
}

/**
 * Whole batches from the one containing `fetchOffset`, within one segment, up to `maxBytes` (at least one batch if
 * `minOneBatch`), none holding an offset >= `maxOffset`. The caller checked `fetchOffset` is within the log.
 * With `pool` the bytes are read into its buffers (the caller gives them back once they are written out).
 */
export function readSegments(
  segments: SegmentMap,
  logEndOffset: number,
  fetchOffset: number,
  maxBytes: number,
  maxOffset: number,
  minOneBatch: boolean,
  pool?: ReadBufferPool,
): { records: Buffer; firstOffset: number } {
  const empty = { records: Buffer.alloc(0), firstOffset: fetchOffset };
  if (fetchOffset === logEndOffset || fetchOffset >= maxOffset) return empty;
  for (const segment of segments.from(fetchOffset)) {
    const start = segment.translateOffset(fetchOffset);
    if (!start) continue;
    if (start.lastOffset >= maxOffset) return empty;
    const window = segment.readBytes(start.position, Math.max(0, maxBytes), pool);
    const length = wholeBatchesLength(window, maxOffset);
    // Copy when most of the window is unused, so a small response does not pin a large buffer (a pooled one
    // goes back to its pool after the write anyway).
    if (length > 0) return { records: length < window.length / 2 && !pool ? Buffer.from(window.subarray(0, length)) : window.subarray(0, length), firstOffset: start.baseOffset };
    pool?.release(window);
    if (!minOneBatch) return empty;
    return { records: segment.readBytes(start.position, start.sizeInBytes, pool), firstOffset: start.baseOffset };
  }
  return empty;
}

/** The first batch whose maxTimestamp >= `timestampMs`, as its base offset (at least logStartOffset). */
export function offsetForTimestamp(segments: SegmentMap, logStartOffset: number, timestampMs: number): { offset: number; timestamp: number } | null {
  for (const segment of segments.values()) {
    const batch = segment.findBatchByTimestamp(timestampMs);
    if (batch && batch.lastOffset >= logStartOffset) {
      return { offset: Math.max(batch.baseOffset, logStartOffset), timestamp: batch.maxTimestamp };
    }
  }
  return null;
}

/**
 * ListOffsets v0 (Kafka's Log.legacyFetchOffsetsBefore): the candidates are each segment's base offset
 * (at least the log start) stamped with the segment file's last-modified time, then the log end stamped
 * now if the active segment holds data. latest (-1) starts at the last candidate, earliest (-2) at the
 * first, any other timestamp at the newest candidate modified at or before it; up to `maxNumOffsets`
 * offsets are taken walking back from there, newest first.
 */
export function legacyOffsetsBefore(segments: SegmentMap, bounds: LogBounds, nowMs: number, timestamp: number, maxNumOffsets: number): number[] {
  const all = [...segments.values()];
  const candidates = all.map((s) => ({ offset: Math.max(s.baseOffset, bounds.logStartOffset), modifiedMs: s.lastModified() }));
  if (all[all.length - 1]!.size > 0) candidates.push({ offset: bounds.logEndOffset, modifiedMs: nowMs });
  let start: number;
  if (timestamp === -1) start = candidates.length - 1;
  else if (timestamp === -2) start = 0;
  else {
    start = candidates.length - 1;
    while (start >= 0 && candidates[start]!.modifiedMs > timestamp) start--;
  }
  const out: number[] = [];
  for (let i = start; i >= 0 && out.length < maxNumOffsets; i--) out.push(candidates[i]!.offset);
  return out.sort((a, b) => b - a);
}
