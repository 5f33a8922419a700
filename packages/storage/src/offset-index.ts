import type { SegmentIo } from './segment-io.js';
import { IndexFile } from './index-file.js';

export interface OffsetPosition {
  offset: number;
  position: number;
}

/**
 * Sparse offset index of one segment (`.index`): 8-byte entries, offset relative to the segment's base
 * (i32) and byte position in the `.log` (i32). Each entry maps a batch's last offset to where that batch starts.
 */
export class OffsetIndex {
  static readonly ENTRY_SIZE = 8;
  readonly baseOffset: number;
  #file: IndexFile;

  constructor(path: string, baseOffset: number, maxIndexBytes: number, io: SegmentIo, fresh: boolean) {
    this.baseOffset = baseOffset;
    this.#file = new IndexFile(path, OffsetIndex.ENTRY_SIZE, maxIndexBytes, io, fresh);
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

  entry(i: number): OffsetPosition {
    const e = this.#file.entry(i);
    return { offset: this.baseOffset + e.readInt32BE(0), position: e.readInt32BE(4) };
  }

  lastEntry(): OffsetPosition | null {
    return this.entries === 0 ? null : this.entry(this.entries - 1);
  }

  /**
   * Loads the file and checks it against a `.log` of `logSize` bytes: whole entries, offsets and positions
   * strictly increasing, positions inside the log. False means the index must be rebuilt.
   */
  load(logSize: number): boolean {
    if (!this.#file.load()) return false;
    let prev: OffsetPosition | null = null;
    for (let i = 0; i < this.entries; i++) {
      const e = this.entry(i);
      if (e.offset < this.baseOffset || e.position < 0 || e.position >= logSize) return false;
      if (prev && (e.offset <= prev.offset || e.position <= prev.position)) return false;
      prev = e;
    }
    return true;
  }

  append(offset: number, position: number): void {
    const last = this.lastEntry();
    if (last && (offset <= last.offset || position <= last.position)) {
      throw new RangeError(`index entry (${offset}, ${position}) not after (${last.offset}, ${last.position}) in ${this.path}`);
    }
    const e = Buffer.allocUnsafe(OffsetIndex.ENTRY_SIZE);
    e.writeInt32BE(offset - this.baseOffset, 0);
    e.writeInt32BE(position, 4);
    this.#file.append(e);
  }

  /** The greatest entry whose offset is <= target, else the segment start. Scan forward from its position. */
  lookup(targetOffset: number): OffsetPosition {
    const rel = targetOffset - this.baseOffset;
    const i = this.#file.floorIndex(rel, (e) => e.readInt32BE(0));
    return i < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(i);
  }

  /** Drops entries pointing at or after `position` (the log is being cut there). */
  truncateToPosition(position: number): void {
    const i = this.#file.floorIndex(position - 1, (e) => e.readInt32BE(4));
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
