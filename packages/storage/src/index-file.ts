import { existsSync } from 'node:fs';
import { fsyncAsync, readFully, writeFully, type SegmentIo } from './segment-io.js';

/**
 * A flat file of fixed-size index entries, mirrored in memory. Entries are appended as they are made
 * (no preallocation, so nothing to trim at roll); the in-memory copy serves lookups.
 */
export class IndexFile {
  readonly path: string;
  readonly entrySize: number;
  readonly maxEntries: number;
  #io: SegmentIo;
  #fd: number;
  #buf: Buffer;
  #count = 0;

  /** Opens (creating if absent) the file; `fresh` truncates it. Call `load` to read existing entries. */
  constructor(path: string, entrySize: number, maxIndexBytes: number, io: SegmentIo, fresh: boolean) {
    this.path = path;
    this.entrySize = entrySize;
    this.maxEntries = Math.max(1, Math.floor(maxIndexBytes / entrySize));
    this.#io = io;
    this.#fd = io.openSync(path, fresh || !existsSync(path) ? 'w+' : 'r+');
    this.#buf = Buffer.alloc(entrySize * 64);
  }

  get entries(): number {
    return this.#count;
  }

  get sizeInBytes(): number {
    return this.#count * this.entrySize;
  }

  isFull(): boolean {
    return this.#count >= this.maxEntries;
  }

  /** Entry `i` as a view into the in-memory copy. */
  entry(i: number): Buffer {
    return this.#buf.subarray(i * this.entrySize, (i + 1) * this.entrySize);
  }

  /** Reads the file into memory. Returns false if its length is not a whole number of entries. */
  load(): boolean {
    const size = this.#io.fstatSync(this.#fd).size;
    if (size % this.entrySize !== 0) return false;
    const data = readFully(this.#io, this.#fd, 0, size);
    if (data.length !== size) return false;
    this.#ensureCapacity(size);
    data.copy(this.#buf, 0);
    this.#count = size / this.entrySize;
    return true;
  }

  /** Appends one entry; on a failed write the file is cut back so file and memory agree, then the error is rethrown. */
  append(entry: Buffer): void {
    const at = this.#count * this.entrySize;
    try {
      writeFully(this.#io, this.#fd, entry, at);
    } catch (err) {
      this.#cutFile(at);
      throw err;
    }
    this.#ensureCapacity(at + this.entrySize);
    entry.copy(this.#buf, at);
    this.#count++;
  }

  /** Keeps the first `n` entries. */
  truncateEntries(n: number): void {
    if (n >= this.#count) return;
    this.#count = n;
    this.#io.ftruncateSync(this.#fd, n * this.entrySize);
  }

  reset(): void {
    this.#count = 0;
    this.#io.ftruncateSync(this.#fd, 0);
  }

  /** Greatest i whose entry key (read by `keyOf`) is <= target, or -1. Keys are ascending. */
  floorIndex(target: number, keyOf: (entry: Buffer) => number): number {
    let lo = 0;
    let hi = this.#count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (keyOf(this.entry(mid)) <= target) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  flush(): void {
    this.#io.fsyncSync(this.#fd);
  }

  flushAsync(): Promise<void> {
    return fsyncAsync(this.#io, this.#fd);
  }

  close(): void {
    this.#io.closeSync(this.#fd);
  }

  #cutFile(length: number): void {
    try {
      this.#io.ftruncateSync(this.#fd, length);
    } catch {
      // The caller reports the original failure; a leftover partial entry is dropped by the length check at load.
    }
  }

  #ensureCapacity(bytes: number): void {
    if (bytes <= this.#buf.length) return;
    let size = this.#buf.length;
    while (size < bytes) size *= 2;
    const grown = Buffer.alloc(size);
    this.#buf.copy(grown, 0, 0, this.#count * this.entrySize);
    this.#buf = grown;
  }
}
