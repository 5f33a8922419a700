import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, GregorError } from '@gregor/common';
import { BATCH_HEADER_SIZE, readBatchHeader, type BatchHeader } from '@gregor/protocol';
import { DELETED_FILE_SUFFIX, indexFileName, logFileName, timeIndexFileName } from './file-names.js';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import type { ReadBufferPool } from './read-buffer-pool.js';
import { fsyncAsync, readFully, writeFully, type SegmentIo } from './segment-io.js';

export interface SegmentOptions {
  indexIntervalBytes: number;
  maxIndexBytes: number;
  io: SegmentIo;
}

/** Running state rebuilt from batches; restored as a whole when an append is rolled back. */
interface SegmentState {
  size: number;
  nextOffset: number;
  maxTimestamp: number;
  offsetOfMaxTimestamp: number;
  bytesSinceLastIndexEntry: number;
}

/** Header scans read this much at a time. */
const SCAN_CHUNK_BYTES = 16 * 1024;
/**
 * Headers of the last batches appended to the active segment, kept for translateOffset: followers and consumers at
 * the tail ask for the offsets just appended, which would otherwise cost a file read and a header scan from the last
 * index entry on every Fetch. Few, so thousands of active segments hold little.
 */
const RECENT_BATCHES = 8;

/** The header at `pos` in `buf`, or null where the bytes are not a v2 batch header (only recovery says why). */
function headerOrNull(buf: Buffer, pos: number, position: number): BatchHeader | null {
  try {
    return readBatchHeader(buf, pos, position);
  } catch {
    return null;
  }
}

export function storageError(message: string, cause: unknown): GregorError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, `${message}${detail}`, { cause });
}

/**
 * One segment of a partition log: `<base>.log` with its `.index` and `.timeindex`. Batches within a segment
 * are contiguous from the base offset, which recovery relies on to spot damaged offset fields.
 */
export class LogSegment {
  readonly dir: string;
  readonly baseOffset: number;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  /** Wall-clock time the segment was created or loaded; `segment.ms` rolls are measured from it. */
  readonly createdMs: number;
  #io: SegmentIo;
  #fd: number;
  #logPath: string;
  #indexIntervalBytes: number;
  #state: SegmentState;
  #closed = false;
  /** File calls under way on the thread pool (flushAsync): closing the files waits for them. */
  #offLoopCalls = 0;
  /** False when an index file was missing at open: it must be rebuilt, not trusted as empty. */
  #indexesFound: boolean;
  /** The last appended batches (file positions), contiguous up to the end of the file; empty when not known. */
  #recent: BatchHeader[] = [];

  /** Opens the files of a segment, creating them if absent; `fresh` empties them. Existing state must then be loaded or recovered. */
  constructor(dir: string, baseOffset: number, options: SegmentOptions, fresh: boolean, nowMs: number) {
    this.dir = dir;
    this.baseOffset = baseOffset;
    this.createdMs = nowMs;
    this.#io = options.io;
    this.#indexIntervalBytes = options.indexIntervalBytes;
    this.#logPath = join(dir, logFileName(baseOffset));
    this.#fd = this.#io.openSync(this.#logPath, fresh || !existsSync(this.#logPath) ? 'w+' : 'r+');
    this.#indexesFound = existsSync(join(dir, indexFileName(baseOffset))) && existsSync(join(dir, timeIndexFileName(baseOffset)));
    this.offsetIndex = new OffsetIndex(join(dir, indexFileName(baseOffset)), baseOffset, options.maxIndexBytes, this.#io, fresh);
    this.timeIndex = new TimeIndex(join(dir, timeIndexFileName(baseOffset)), baseOffset, options.maxIndexBytes, this.#io, fresh);
    this.#state = { size: 0, nextOffset: baseOffset, maxTimestamp: -1, offsetOfMaxTimestamp: baseOffset, bytesSinceLastIndexEntry: 0 };
    if (!fresh) this.#state.size = this.fileSize();
  }

  get logPath(): string {
    return this.#logPath;
  }
  get size(): number {
    return this.#state.size;
  }
  /** Offset after the last batch; the base offset when empty. */
  get nextOffset(): number {
    return this.#state.nextOffset;
  }
  /** Largest batch maxTimestamp, -1 if no batch has one. */
  get maxTimestamp(): number {
    return this.#state.maxTimestamp;
  }
  isEmpty(): boolean {
    return this.#state.size === 0;
  }

  /** What retention compares against: the largest timestamp, or the file's mtime if the batches carry none (as Kafka). */
  largestTimestamp(): number {
    return this.#state.maxTimestamp >= 0 ? this.#state.maxTimestamp : this.#io.fstatSync(this.#fd).mtimeMs;
  }

  /** The log file's modification time in ms (Kafka's LogSegment.lastModified, what ListOffsets v0 compares). */
  lastModified(): number {
    return Math.floor(this.#io.fstatSync(this.#fd).mtimeMs);
  }

  fileSize(): number {
    return this.#io.fstatSync(this.#fd).size;
  }

  isIndexFull(): boolean {
    return this.offsetIndex.isFull() || this.timeIndex.isFull();
  }

  /**
   * Appends whole batches whose offsets are already assigned; `batches` give their positions within `records`.
   * On failure the file and indexes are cut back to where they were and a KAFKA_STORAGE_ERROR is thrown.
   */
  append(records: Buffer, batches: readonly BatchHeader[]): void {
    const saved = { ...this.#state };
    try {
      writeFully(this.#io, this.#fd, records, saved.size);
      this.#state.size += records.length;
      for (const b of batches) this.indexBatch(b, saved.size + b.position);
    } catch (err) {
      this.#rollBack(saved);
      throw storageError(`append to ${this.#logPath} at byte ${saved.size} failed`, err);
    }
    this.#remember(batches, saved.size);
  }

  /**
   * Updates running state and the sparse indexes for a batch already in the file (append and recovery) at `position`
   * in the file (b.position is relative to the appended buffer on append).
   */
  indexBatch(b: BatchHeader, position = b.position): void {
    const s = this.#state;
    if (b.maxTimestamp > s.maxTimestamp) {
      s.maxTimestamp = b.maxTimestamp;
      s.offsetOfMaxTimestamp = b.baseOffset;
    }
    if (s.bytesSinceLastIndexEntry > this.#indexIntervalBytes) {
      this.offsetIndex.append(b.lastOffset, position);
      if (s.maxTimestamp >= 0) this.timeIndex.maybeAppend(s.maxTimestamp, s.offsetOfMaxTimestamp);
      s.bytesSinceLastIndexEntry = 0;
    }
    s.bytesSinceLastIndexEntry += b.sizeInBytes;
    s.nextOffset = b.lastOffset + 1;
  }

  /** Empties both indexes and the running state, keeping the log bytes (recovery then re-indexes them). */
  resetIndexes(): void {
    this.#recent = [];
    this.offsetIndex.reset();
    this.timeIndex.reset();
    this.#state = { size: this.#state.size, nextOffset: this.baseOffset, maxTimestamp: -1, offsetOfMaxTimestamp: this.baseOffset, bytesSinceLastIndexEntry: 0 };
  }

  /**
   * Loads the index files of a cleanly closed segment and derives the running state from the batches after the
   * last index entry. Returns false if anything is inconsistent; the caller then recovers the segment.
   */
  loadIndexes(): boolean {
    if (!this.#indexesFound || !this.offsetIndex.load(this.#state.size)) return false;
    const last = this.offsetIndex.lastEntry();
    const tail = this.#scanTail(last?.position ?? 0, last?.offset);
    if (!tail) return false;
    if (!this.timeIndex.load(tail.nextOffset)) return false;
    this.#applyTail(tail);
    return true;
  }

  /** Header of the batch at `position`, or null at end of file, before a partial header or at one that is not a batch's. */
  readHeaderAt(position: number): BatchHeader | null {
    if (position + BATCH_HEADER_SIZE > this.#state.size) return null;
    const buf = readFully(this.#io, this.#fd, position, BATCH_HEADER_SIZE);
    if (buf.length < BATCH_HEADER_SIZE) return null;
    return headerOrNull(buf, 0, position);
  }

  readBytes(position: number, length: number, pool?: ReadBufferPool): Buffer {
    return readFully(this.#io, this.#fd, position, Math.max(0, Math.min(length, this.#state.size - position)), pool && ((n) => pool.acquire(n)));
  }

  /**
   * Batch headers from `position` on, read in chunks rather than one call per batch. Stops at the end of the
   * file, before a partial header, or before a header that is not a batch's (wrong magic, impossible length).
   */
  *headersFrom(position: number): Generator<BatchHeader> {
    let chunk: Buffer = Buffer.alloc(0);
    let chunkStart = position;
    let pos = position;
    while (pos + BATCH_HEADER_SIZE <= this.#state.size) {
      if (pos + BATCH_HEADER_SIZE > chunkStart + chunk.length) {
        chunkStart = pos;
        chunk = readFully(this.#io, this.#fd, pos, Math.min(SCAN_CHUNK_BYTES, this.#state.size - pos));
        if (chunk.length < BATCH_HEADER_SIZE) return;
      }
      const header = headerOrNull(chunk, pos - chunkStart, pos);
      if (!header) return;
      yield header;
      pos += header.sizeInBytes;
    }
  }

  /** The first batch whose last offset is >= `offset`: among the last appended if it is one, else found from the index then scanned forward. */
  translateOffset(offset: number): BatchHeader | null {
    const recent = this.#recent;
    if (recent.length > 0 && offset >= recent[0]!.baseOffset) {
      for (const h of recent) if (h.lastOffset >= offset) return { ...h };
      return null;
    }
    for (const h of this.headersFrom(this.offsetIndex.lookup(offset).position)) {
      if (h.lastOffset >= offset) return h;
    }
    return null;
  }

  /** The first batch whose maxTimestamp is >= `timestamp`. */
  findBatchByTimestamp(timestamp: number): BatchHeader | null {
    if (this.#state.maxTimestamp < timestamp) return null;
    const before = this.timeIndex.lastEntryBefore(timestamp);
    for (const h of this.headersFrom(before ? this.offsetIndex.lookup(before.offset).position : 0)) {
      if (h.maxTimestamp >= timestamp) return h;
    }
    return null;
  }

  /** Drops every batch holding offsets >= `offset` (a batch containing it goes whole). Returns bytes removed. */
  truncateTo(offset: number): number {
    const h = this.translateOffset(offset);
    if (!h) return 0;
    return this.truncateToPosition(h.position);
  }

  /**
   * Cuts the log at `position` (a batch boundary; `cutOffset` is the first offset removed) and the indexes
   * with it, then re-derives the running state.
   */
  truncateToPosition(position: number, cutOffset = this.readHeaderAt(position)?.baseOffset ?? this.#state.nextOffset): number {
    const removed = this.fileSize() - position;
    try {
      this.#io.ftruncateSync(this.#fd, position);
    } catch (err) {
      throw storageError(`truncating ${this.#logPath} to ${position} failed`, err);
    }
    this.#state.size = position;
    this.#recent = this.#recent.filter((h) => h.position < position);
    this.offsetIndex.truncateToPosition(position);
    this.timeIndex.truncateTo(cutOffset);
    const last = this.offsetIndex.lastEntry();
    const tail = this.#scanTail(last?.position ?? 0, last?.offset);
    if (tail) this.#applyTail(tail);
    return removed;
  }

  /** Called at roll: a final time index entry so a closed segment's largest timestamp is in its index. */
  onBecomeInactive(): void {
    this.#recent = [];
    if (this.#state.maxTimestamp >= 0) this.timeIndex.maybeAppend(this.#state.maxTimestamp, this.#state.offsetOfMaxTimestamp);
  }

  /** fsyncs the log file off the event loop (the cleaner's segment before its swap; flush() then finds it clean). */
  flushLogAsync(): Promise<void> {
    return this.#offLoop(() => fsyncAsync(this.#io, this.#fd));
  }

  /** flush() off the event loop: the log file and both indexes (Kafka's flush-log task after a roll). */
  flushAsync(): Promise<void> {
    return this.#offLoop(() => Promise.all([fsyncAsync(this.#io, this.#fd), this.offsetIndex.flushAsync(), this.timeIndex.flushAsync()]));
  }

  /**
   * Runs a file call on the thread pool. The files stay open until every such call finished, even if the segment is
   * closed (deleted, truncated away) meanwhile: a closed descriptor could otherwise be reused by another file.
   */
  async #offLoop(op: () => Promise<unknown>): Promise<void> {
    if (this.#closed) return;
    this.#offLoopCalls++;
    try {
      await op();
    } catch (err) {
      throw storageError(`flushing ${this.#logPath} failed`, err);
    } finally {
      if (--this.#offLoopCalls === 0 && this.#closed) this.#closeFiles();
    }
  }

  flush(): void {
    try {
      this.#io.fsyncSync(this.#fd);
      this.offsetIndex.flush();
      this.timeIndex.flush();
    } catch (err) {
      throw storageError(`flushing ${this.#logPath} failed`, err);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#offLoopCalls === 0) this.#closeFiles();
  }

  #closeFiles(): void {
    this.#io.closeSync(this.#fd);
    this.offsetIndex.close();
    this.timeIndex.close();
  }

  /** Closes and renames the files to `*.deleted`; returns the new paths for the delayed removal. */
  renameToDeleted(): string[] {
    this.close();
    const renamed: string[] = [];
    for (const path of [this.#logPath, this.offsetIndex.path, this.timeIndex.path]) {
      if (!existsSync(path)) continue;
      renameSync(path, path + DELETED_FILE_SUFFIX);
      renamed.push(path + DELETED_FILE_SUFFIX);
    }
    return renamed;
  }

  deleteFiles(): void {
    this.close();
    for (const path of [this.#logPath, this.offsetIndex.path, this.timeIndex.path]) rmSync(path, { force: true });
  }

  /**
   * Walks batch headers from `position` (where the last index entry points, whose offset should be
   * `expectedLastOffset`) to the end. Null if a header is cut off or inconsistent.
   */
  #scanTail(position: number, expectedLastOffset: number | undefined): (SegmentState & { tailStart: number }) | null {
    const tail = { ...this.#state, tailStart: position, nextOffset: this.baseOffset, maxTimestamp: -1, offsetOfMaxTimestamp: this.baseOffset, bytesSinceLastIndexEntry: 0 };
    const lastTime = this.timeIndex.lastEntry();
    if (lastTime) {
      tail.maxTimestamp = lastTime.timestamp;
      tail.offsetOfMaxTimestamp = lastTime.offset;
    }
    let pos = position;
    let first = true;
    for (const h of this.headersFrom(position)) {
      if (pos + h.sizeInBytes > this.#state.size) return null;
      if (first && expectedLastOffset !== undefined && h.lastOffset !== expectedLastOffset) return null;
      if (h.baseOffset < tail.nextOffset && !first) return null;
      first = false;
      if (h.maxTimestamp > tail.maxTimestamp) {
        tail.maxTimestamp = h.maxTimestamp;
        tail.offsetOfMaxTimestamp = h.baseOffset;
      }
      tail.nextOffset = h.lastOffset + 1;
      pos += h.sizeInBytes;
    }
    if (pos !== this.#state.size) return null;
    tail.bytesSinceLastIndexEntry = pos - position;
    return tail;
  }

  #applyTail(tail: SegmentState): void {
    this.#state = {
      size: this.#state.size,
      nextOffset: tail.nextOffset,
      maxTimestamp: tail.maxTimestamp,
      offsetOfMaxTimestamp: tail.offsetOfMaxTimestamp,
      bytesSinceLastIndexEntry: tail.bytesSinceLastIndexEntry,
    };
  }

  /** Keeps the headers of appended batches (`start`: where in the file the appended buffer went). */
  #remember(batches: readonly BatchHeader[], start: number): void {
    // What is kept must reach the end of the file without a gap: start over if it would not.
    const last = this.#recent.at(-1);
    if (last && last.position + last.sizeInBytes !== start) this.#recent = [];
    for (let i = Math.max(0, batches.length - RECENT_BATCHES); i < batches.length; i++) {
      this.#recent.push({ ...batches[i]!, position: start + batches[i]!.position });
    }
    if (this.#recent.length > RECENT_BATCHES) this.#recent.splice(0, this.#recent.length - RECENT_BATCHES);
  }

  #rollBack(saved: SegmentState): void {
    try {
      this.#io.ftruncateSync(this.#fd, saved.size);
      this.offsetIndex.truncateToPosition(saved.size);
      this.timeIndex.truncateTo(saved.nextOffset);
    } catch {
      // The original failure is reported; recovery at the next start cuts whatever is left.
    }
    this.#state = saved;
  }
}
