import type { Logger } from '@gregor/common';
import type { SegmentIo } from './segment-io.js';

/**
 * The errno codes that mean the disk under a log dir failed or filled up (Kafka: any IOException there).
 * Node reports them on the failed call; none of them is a bug in the caller.
 */
const STORAGE_FAILURE_CODES = new Set(['EIO', 'ENOSPC', 'EDQUOT', 'EROFS', 'ENXIO', 'ENODEV']);

export function isStorageFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && STORAGE_FAILURE_CODES.has(code)) return true;
  }
  return false;
}

/**
 * Kafka's LogDirFailureChannel (KIP-112): an I/O error in a log dir marks that dir offline, once. Whoever
 * handles it (the broker's LogDirFailureHandler) hears about it asynchronously, never inside the failing call.
 */
export class LogDirFailureChannel {
  readonly #offline = new Set<string>();
  readonly #listeners: ((dir: string) => void)[] = [];
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Marks `dir` offline; listeners are told once per dir. */
  maybeAddOfflineLogDir(dir: string, message: string, err: unknown): void {
    if (this.#offline.has(dir)) return;
    this.#offline.add(dir);
    this.#log.error({ err, logDir: dir }, `${message}: log dir ${dir} is offline`);
    setImmediate(() => {
      for (const l of this.#listeners) l(dir);
    });
  }

  hasOfflineLogDir(dir: string): boolean {
    return this.#offline.has(dir);
  }

  offlineLogDirs(): string[] {
    return [...this.#offline];
  }

  onOfflineLogDir(listener: (dir: string) => void): void {
    this.#listeners.push(listener);
  }
}

/**
 * Wraps a SegmentIo so that a storage failure on a file under a log dir takes that dir offline. The error is
 * rethrown unchanged: the caller (a segment append, a roll) still fails and reports KAFKA_STORAGE_ERROR.
 */
export function failureDetectingIo(io: SegmentIo, logDirOf: (path: string) => string | undefined, channel: LogDirFailureChannel): SegmentIo {
  const dirOfFd = new Map<number, string>();
  const guard = <T>(dir: string | undefined, what: string, op: () => T): T => {
    try {
      return op();
    } catch (err) {
      if (dir !== undefined && isStorageFailure(err)) channel.maybeAddOfflineLogDir(dir, what, err);
      throw err;
    }
  };
  const onFd = <T>(fd: number, what: string, op: () => T): T => guard(dirOfFd.get(fd), what, op);
  return {
    openSync(path, flags) {
      const dir = logDirOf(path);
      const fd = guard(dir, `open ${path}`, () => io.openSync(path, flags));
      if (dir !== undefined) dirOfFd.set(fd, dir);
      return fd;
    },
    closeSync(fd) {
      try {
        onFd(fd, 'close', () => io.closeSync(fd));
      } finally {
        dirOfFd.delete(fd);
      }
    },
    writeSync: (fd, buffer, offset, length, position) => onFd(fd, 'write', () => io.writeSync(fd, buffer, offset, length, position)),
    readSync: (fd, buffer, offset, length, position) => onFd(fd, 'read', () => io.readSync(fd, buffer, offset, length, position)),
    fsyncSync: (fd) => onFd(fd, 'fsync', () => io.fsyncSync(fd)),
    fsync(fd, callback) {
      const dir = dirOfFd.get(fd);
      io.fsync(fd, (err) => {
        if (err && dir !== undefined && isStorageFailure(err)) channel.maybeAddOfflineLogDir(dir, 'fsync', err);
        callback(err);
      });
    },
    ftruncateSync: (fd, length) => onFd(fd, 'truncate', () => io.ftruncateSync(fd, length)),
    fstatSync: (fd) => onFd(fd, 'stat', () => io.fstatSync(fd)),
  };
}
