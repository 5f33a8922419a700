import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BATCH_HEADER_SIZE, batchLastOffsetAt, batchSizeAt } from '@gregor/protocol';
import { INDEX_FILE_SUFFIX, LOG_FILE_SUFFIX, offsetFromFileName, TIME_INDEX_FILE_SUFFIX } from './file-names.js';

/** Suffix of a cleaned segment's files between "written" and "in place" (Kafka's `.swap`). */
export const SWAP_FILE_SUFFIX = '.swap';
/** Where the cleaner writes a segment before it is committed as `.swap` files. */
export const CLEANED_DIR = 'cleaned';

/** The last offset covered by the whole batches of a segment file (-1 when it has none). */
function lastOffsetOf(path: string): number {
  const buf = readFileSync(path);
  let pos = 0;
  let last = -1;
  for (;;) {
    const size = batchSizeAt(buf, pos);
    if (size === null || size < BATCH_HEADER_SIZE || pos + size > buf.length) return last;
    last = batchLastOffsetAt(buf, pos);
    pos += size;
  }
}

/**
 * Completes committed compactions in a partition directory: each `<base>.log.swap` replaces every segment whose
 * base offset lies within the offsets it covers, then its `.swap` files take their final names.
 */
export function completeSwaps(dir: string): void {
  const names = readdirSync(dir);
  for (const swap of names.filter((n) => n.endsWith(LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX))) {
    const base = offsetFromFileName(swap.slice(0, -SWAP_FILE_SUFFIX.length));
    if (base === null) continue;
    const last = lastOffsetOf(join(dir, swap));
    for (const name of names) {
      if (!(name.endsWith(LOG_FILE_SUFFIX) || name.endsWith(INDEX_FILE_SUFFIX) || name.endsWith(TIME_INDEX_FILE_SUFFIX))) continue;
      const b = offsetFromFileName(name);
      if (b !== null && b >= base && b <= Math.max(base, last)) rmSync(join(dir, name), { force: true });
    }
    for (const suffix of [LOG_FILE_SUFFIX, INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX]) {
      const from = join(dir, swap.slice(0, -(LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX).length) + suffix + SWAP_FILE_SUFFIX);
      try {
        renameSync(from, from.slice(0, -SWAP_FILE_SUFFIX.length));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
}
