import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchOffsets } from '@gregor/protocol';
import { indexFileName, logFileName, timeIndexFileName } from './file-names.js';
import { completeSwaps, SWAP_FILE_SUFFIX } from './segment-swap.js';
import { simpleBatch, tempDir } from './test-batches.js';

let dir: { path: string; cleanup(): void };
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

/** `count` one-record batches of `valueSize` bytes from `base` on. */
function batches(base: number, count: number, valueSize: number): Buffer {
  return Buffer.concat(
    Array.from({ length: count }, (_, i) => {
      const b = simpleBatch(1, valueSize);
      b.writeBigInt64BE(BigInt(base + i), BatchOffsets.baseOffset);
      return b;
    }),
  );
}

function segment(base: number, suffix = ''): void {
  writeFileSync(join(dir.path, logFileName(base) + suffix), batches(base, 1, 10));
  writeFileSync(join(dir.path, indexFileName(base) + suffix), '');
  writeFileSync(join(dir.path, timeIndexFileName(base) + suffix), '');
}

describe('completeSwaps', () => {
  it('a swap file larger than its read window, with a torn last batch, replaces exactly the segments it covers', () => {
    segment(0);
    segment(1000);
    segment(2500); // after the swap's last whole batch (offset 2499): kept
    // Offsets 0..2499 in batches of small and large records (headers straddle the 64 KiB window), then a torn batch.
    const whole = Buffer.concat([batches(0, 2000, 20), batches(2000, 500, 3000)]);
    const torn = batches(2500, 1, 3000).subarray(0, 500);
    writeFileSync(join(dir.path, logFileName(0) + SWAP_FILE_SUFFIX), Buffer.concat([whole, torn]));
    writeFileSync(join(dir.path, indexFileName(0) + SWAP_FILE_SUFFIX), '');
    writeFileSync(join(dir.path, timeIndexFileName(0) + SWAP_FILE_SUFFIX), '');
    completeSwaps(dir.path);
    expect(readdirSync(dir.path).sort()).toEqual([indexFileName(0), logFileName(0), timeIndexFileName(0), indexFileName(2500), logFileName(2500), timeIndexFileName(2500)].sort());
  });

  it('a swap file whose batches end before the next segment keeps that segment; one without a whole batch replaces only its base', () => {
    segment(0);
    segment(5);
    writeFileSync(join(dir.path, logFileName(0) + SWAP_FILE_SUFFIX), batches(0, 3, 10).subarray(0, 40)); // not even one whole batch
    completeSwaps(dir.path);
    expect(readdirSync(dir.path).filter((n) => n.endsWith('.log')).sort()).toEqual([logFileName(0), logFileName(5)]);
  });
});
