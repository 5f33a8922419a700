import type { LogSegment } from './segment.js';

/** A log's segments keyed by base offset, kept sorted (Kafka's ConcurrentSkipListMap), with floor lookups in O(log n). */
export class SegmentMap {
  #sorted: LogSegment[] = [];

  get size(): number {
    return this.#sorted.length;
  }

  first(): LogSegment | undefined {
    return this.#sorted[0];
  }

  last(): LogSegment | undefined {
    return this.#sorted.at(-1);
  }

  /** A snapshot in base-offset order (safe to iterate while removing). */
  values(): LogSegment[] {
    return [...this.#sorted];
  }

  baseOffsets(): number[] {
    return this.#sorted.map((s) => s.baseOffset);
  }

  /** Adds a segment, replacing any with the same base offset (returned). */
  add(segment: LogSegment): LogSegment | undefined {
    const i = this.#lowerBound(segment.baseOffset);
    const existing = this.#sorted[i];
    if (existing && existing.baseOffset === segment.baseOffset) {
      this.#sorted[i] = segment;
      return existing;
    }
    this.#sorted.splice(i, 0, segment);
    return undefined;
  }

  remove(segment: LogSegment): void {
    const i = this.#lowerBound(segment.baseOffset);
    if (this.#sorted[i] === segment) this.#sorted.splice(i, 1);
  }

  /** Segments from the one containing `offset` (the greatest base <= offset, or the first) to the end. */
  from(offset: number): LogSegment[] {
    const i = this.#lowerBound(offset + 1) - 1;
    return this.#sorted.slice(Math.max(0, i));
  }

  /** Index of the first segment whose base offset is >= `offset`. */
  #lowerBound(offset: number): number {
    let lo = 0;
    let hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#sorted[mid]!.baseOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
