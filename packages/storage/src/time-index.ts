import { readInt64Number } from '@gregor/protocol';
import type { SegmentIo } from './segment-io.js';
import { IndexFile } from './index-file.js';

export interface TimestampOffset {
  timestamp: number;
  offset: number;
}

/**
 * Sparse time index of one segment (`.timeindex`): 12-byte entries, timestamp i64 + offset relative to the
 * segment's base (i32). An entry (T, O) says: the running max timestamp reached T at the batch starting at O,
 * and no batch up to the entry's point has a larger timestamp. Timestamps strictly increase.
 */
export class TimeIndex {
  static readonly ENTRY_SIZE = 12;
  readonly baseOffset: number;
  #file: IndexFile;

  constructor(path: string, baseOffset: number, maxIndexBytes: number, io: SegmentIo, fresh: boolean) {
    this.baseOffset = baseOffset;
    this.#file = new IndexFile(path, TimeIndex.ENTRY_SIZE, maxIndexBytes, io, fresh);
  }

  get path(): string {
    return this.#file.path;
  }
  get entries(): number {
    return this.#file.entries;
  }
  get sizeInBytes(): number {
    return this.#file.sizeInBytes;
  }
  isFull(): boolean {
    return this.#file.isFull();
  }

  entry(i: number): TimestampOffset {
    const e = this.#file.entry(i);
    return { timestamp: readInt64Number(e, 0), offset: this.baseOffset + e.readInt32BE(8) };
  }

  lastEntry(): TimestampOffset | null {
    return this.entries === 0 ? null : this.entry(this.entries - 1);
  }

  /** Loads and checks the file: whole entries, timestamps strictly and offsets weakly increasing, offsets below `nextOffset`. */
  load(nextOffset: number): boolean {
    if (!this.#file.load()) return false;
    let prev: TimestampOffset | null = null;
    for (let i = 0; i < this.entries; i++) {
      const e = this.entry(i);
      if (e.offset < this.baseOffset || e.offset >= nextOffset) return false;
      if (prev && (e.timestamp <= prev.timestamp || e.offset < prev.offset)) return false;
      prev = e;
    }
    return true;
  }

  /** Appends only if `timestamp` is above the last entry's (the index keeps a running max). */
  maybeAppend(timestamp: number, offset: number): void {
    const last = this.lastEntry();
    if (last && timestamp <= last.timestamp) return;
    const e = Buffer.allocUnsafe(TimeIndex.ENTRY_SIZE);
    e.writeBigInt64BE(BigInt(timestamp), 0);
    e.writeInt32BE(offset - this.baseOffset, 8);
    this.#file.append(e);
  }

  /** The greatest entry with timestamp strictly below `timestamp`: every batch up to it is older than the target. */
  lastEntryBefore(timestamp: number): TimestampOffset | null {
    const i = this.#file.floorIndex(timestamp - 1, (e) => readInt64Number(e, 0));
    return i < 0 ? null : this.entry(i);
  }

  /** Drops entries at or after `offset`. */
  truncateTo(offset: number): void {
    const i = this.#file.floorIndex(offset - this.baseOffset - 1, (e) => e.readInt32BE(8));
    this.#file.truncateEntries(i + 1);
  }

  reset(): void {
    this.#file.reset();
  }
  flush(): void {
    this.#file.flush();
  }

  flushAsync(): Promise<void> {
    return this.#file.flushAsync();
  }
  close(): void {
    this.#file.close();
  }
}
