import * as fs from 'node:fs';

/**
 * The synchronous file calls a segment makes. Production uses node:fs; tests wrap it to inject
 * failures such as ENOSPC at a chosen byte, on real files.
 */
export interface SegmentIo {
  openSync(path: string, flags: string): number;
  closeSync(fd: number): void;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  fsyncSync(fd: number): void;
  /** fsync on libuv's thread pool: the event loop goes on meanwhile. */
  fsync(fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void;
  ftruncateSync(fd: number, length: number): void;
  fstatSync(fd: number): fs.Stats;
}

export const nodeIo: SegmentIo = {
  openSync: (path, flags) => fs.openSync(path, flags),
  closeSync: (fd) => fs.closeSync(fd),
  writeSync: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position),
  readSync: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  fsync: (fd, callback) => fs.fsync(fd, callback),
  ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
  fstatSync: (fd) => fs.fstatSync(fd),
};

/** Writes all of `buffer` at `position`, looping over short writes. */
export function writeFully(io: SegmentIo, fd: number, buffer: Buffer, position: number): void {
  let done = 0;
  while (done < buffer.length) {
    done += io.writeSync(fd, buffer, done, buffer.length - done, position + done);
  }
}

/** Reads up to `length` bytes at `position`; the result is shorter only at end of file. `alloc` supplies the memory (a pool). */
export function readFully(io: SegmentIo, fd: number, position: number, length: number, alloc?: (length: number) => Buffer): Buffer {
  const buffer = alloc ? alloc(length).subarray(0, length) : Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = io.readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}

/** io.fsync as a promise. */
export function fsyncAsync(io: SegmentIo, fd: number): Promise<void> {
  return new Promise((resolve, reject) => io.fsync(fd, (err) => (err ? reject(err) : resolve())));
}
