import { readFileSync, writeFileSync } from 'node:fs';
import { ErrorCode } from '@gregor/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { bombBatches } from '../../../../test/support/decompression-bombs.js';
import { decodeRecordBatch } from './decode-record-batch.js';

const MiB = 1024 * 1024;
/** What each bomb inflates to, and the cap the reader sets. */
const INFLATED = 128 * MiB;
const CAP = 1 * MiB;

function status(field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/self/status`);
  return Number(m[1]) * 1024;
}

/** How far the resident set grows while `fn` runs: Linux's peak RSS (VmHWM), reset first (clear_refs 5). */
function rssGrowth(fn: () => void): number {
  (globalThis as { gc?: () => void }).gc?.();
  writeFileSync('/proc/self/clear_refs', '5');
  const before = status('VmRSS');
  fn();
  return status('VmHWM') - before;
}

function refused(batch: Buffer, cap = CAP): unknown {
  try {
    decodeRecordBatch(batch, 0, { maxDecompressedBytes: cap });
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('decompression bombs: a small batch inflating far past the cap is refused without inflating it', () => {
  let bombs = new Map<string, Buffer>();
  beforeAll(() => {
    bombs = bombBatches(INFLATED);
  }, 120_000);

  it('the bombs are small and really inflate to 128 MiB (the control: a cap above it decodes zstd, and the RSS probe sees it)', () => {
    // snappy's best ratio is about 21:1, the others' far higher.
    for (const [name, batch] of bombs) expect(batch.length, name).toBeLessThan(INFLATED / 16);
    expect(bombs.get('zstd')!.length).toBeLessThan(64 * 1024);
    let err: unknown;
    const grown = rssGrowth(() => {
      err = refused(bombs.get('zstd')!, 2 * INFLATED);
    });
    // 128 MiB of zeros are no valid records: the decoder fails after inflating, having held all of it.
    expect(err).toMatchObject({ code: ErrorCode.CORRUPT_MESSAGE, message: expect.not.stringContaining('decompression limit') });
    expect(grown).toBeGreaterThan(INFLATED / 2);
  });

  it.each(['gzip', 'snappy', 'snappy (raw block declaring 4 GiB)', 'lz4', 'zstd'])('%s: CorruptDataError at the cap, resident memory well under the inflated size', (name) => {
    let err: unknown;
    const grown = rssGrowth(() => {
      err = refused(bombs.get(name)!);
    });
    expect(err).toMatchObject({ code: ErrorCode.CORRUPT_MESSAGE, message: expect.stringContaining(`${CAP}-byte decompression limit`) });
    expect(grown).toBeLessThan(24 * MiB);
  });
});
