import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CorruptDataError } from '@gregor/common';

/**
 * Kafka's checkpoint file format, shared by the offset checkpoints and `leader-epoch-checkpoint`:
 * line 1 the version `0`, line 2 the entry count, then one entry per line. Written to a temp file,
 * fsynced, renamed over the old one, and the directory fsynced, so a crash leaves the old or the new file.
 */
export const CHECKPOINT_VERSION = 0;

export function writeCheckpointFile(path: string, lines: readonly string[]): void {
  const tmp = `${path}.tmp`;
  const text = `${CHECKPOINT_VERSION}\n${lines.length}\n${lines.map((l) => `${l}\n`).join('')}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

/**
 * The same write without blocking the event loop: a periodic fsync taking tens of milliseconds would
 * otherwise stall every request of the broker (it showed in end-to-end latency tails). Concurrent writes
 * of one path are chained, so the last snapshot always wins.
 */
const pendingWrites = new Map<string, Promise<void>>();

export function writeCheckpointFileAsync(path: string, lines: readonly string[], stillWanted: () => boolean = () => true): Promise<void> {
  const text = `${CHECKPOINT_VERSION}\n${lines.length}\n${lines.map((l) => `${l}\n`).join('')}`;
  const previous = pendingWrites.get(path) ?? Promise.resolve();
  const next = previous
    .catch(() => {})
    .then(async () => {
      if (!stillWanted()) return; // e.g. the log was closed or deleted meanwhile: its dir may be another log's now
      const tmp = `${path}.async.tmp`; // never the sync writer's temp file
      const fh = await open(tmp, 'w');
      try {
        await fh.writeFile(text);
        await fh.sync();
      } finally {
        await fh.close();
      }
      if (!stillWanted()) {
        await unlink(tmp).catch(() => {});
        return;
      }
      await rename(tmp, path);
      const dir = await open(dirname(path), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    });
  pendingWrites.set(path, next);
  void next.finally(() => {
    if (pendingWrites.get(path) === next) pendingWrites.delete(path);
  }).catch(() => {});
  return next;
}

/** The entry lines of a checkpoint file, or null if it does not exist. Throws CorruptDataError if malformed. */
export function readCheckpointFile(path: string): string[] | null {
  if (!existsSync(path)) return null;
  const lines = readFileSync(path, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines[0] !== String(CHECKPOINT_VERSION)) throw new CorruptDataError(`${path}: unsupported checkpoint version ${JSON.stringify(lines[0])}`);
  const count = Number(lines[1]);
  if (!Number.isInteger(count) || count < 0 || lines.length !== count + 2) {
    throw new CorruptDataError(`${path}: expected ${lines[1]} entries, found ${lines.length - 2}`);
  }
  return lines.slice(2);
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: number;
}

/** `recovery-point-offset-checkpoint`, `replication-offset-checkpoint`, `log-start-offset-checkpoint`: `topic partition offset` lines. */
export class OffsetCheckpointFile {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  write(entries: readonly TopicPartitionOffset[]): void {
    writeCheckpointFile(
      this.path,
      entries.map((e) => `${e.topic} ${e.partition} ${e.offset}`),
    );
  }

  writeAsync(entries: readonly TopicPartitionOffset[]): Promise<void> {
    return writeCheckpointFileAsync(
      this.path,
      entries.map((e) => `${e.topic} ${e.partition} ${e.offset}`),
    );
  }

  /** Entries keyed by `topic-partition`; empty if the file is absent. */
  read(): Map<string, TopicPartitionOffset> {
    const out = new Map<string, TopicPartitionOffset>();
    for (const line of readCheckpointFile(this.path) ?? []) {
      const parts = line.split(' ');
      const partition = Number(parts[1]);
      const offset = Number(parts[2]);
      if (parts.length !== 3 || parts[0] === '' || !Number.isInteger(partition) || !Number.isSafeInteger(offset)) {
        throw new CorruptDataError(`${this.path}: malformed entry ${JSON.stringify(line)}`);
      }
      out.set(`${parts[0]}-${partition}`, { topic: parts[0]!, partition, offset });
    }
    return out;
  }
}
