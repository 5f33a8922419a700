import { ErrorCode, GregorError } from '@gregor/common';

/**
 * Kafka's on-disk naming: segment files are named by base offset zero-padded to 20 digits,
 * partition directories are `<topic>-<partition>`.
 */
export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
/** Segment files waiting for `fileDeleteDelayMs` before removal. */
export const DELETED_FILE_SUFFIX = '.deleted';
/** Partition directories being removed (`<dir>.<uuid>-delete`). */
export const DELETE_DIR_SUFFIX = '-delete';

const OFFSET_DIGITS = 20;

export function filenamePrefixFromOffset(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid base offset ${offset}`);
  return String(offset).padStart(OFFSET_DIGITS, '0');
}

export function logFileName(baseOffset: number): string {
  return filenamePrefixFromOffset(baseOffset) + LOG_FILE_SUFFIX;
}
export function indexFileName(baseOffset: number): string {
  return filenamePrefixFromOffset(baseOffset) + INDEX_FILE_SUFFIX;
}
export function timeIndexFileName(baseOffset: number): string {
  return filenamePrefixFromOffset(baseOffset) + TIME_INDEX_FILE_SUFFIX;
}

/** The base offset of a segment file name such as `00000000000000000042.log`, or null if it is not one. */
export function offsetFromFileName(name: string): number | null {
  const m = /^(\d{20})\.[a-z]+$/.exec(name);
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Throws unless `name` is a safe single path component: partition directories are joined onto a
 * log dir, and nothing outside `log.dirs` may ever be touched (defence in depth; the broker validates topics).
 */
export function assertSafeDirName(name: string): void {
  if (name.length === 0 || name === '.' || name === '..' || name.includes('/') || name.includes('\\') || name.includes('\0')) {
    throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, `unsafe partition directory name ${JSON.stringify(name)}`);
  }
}

export function partitionDirName(topic: string, partition: number): string {
  if (!Number.isInteger(partition) || partition < 0) throw new RangeError(`invalid partition ${partition}`);
  const name = `${topic}-${partition}`;
  assertSafeDirName(topic);
  assertSafeDirName(name);
  return name;
}

/** Parses `<topic>-<partition>`; the topic may itself contain '-', so split at the last one. */
export function parseTopicPartitionDir(name: string): { topic: string; partition: number } | null {
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return null;
  const topic = name.slice(0, dash);
  const digits = name.slice(dash + 1);
  if (!/^\d+$/.test(digits)) return null;
  const partition = Number(digits);
  if (!Number.isSafeInteger(partition) || partition > 0x7fffffff) return null;
  if (topic === '.' || topic === '..' || topic.includes('/')) return null;
  return { topic, partition };
}
