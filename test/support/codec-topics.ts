// Test support for the codec tests: what the segment files of a partition hold, batch by batch.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forEachBatch } from '@gregor/protocol';

export const CODECS = ['gzip', 'snappy', 'lz4', 'zstd'] as const;
export type Codec = (typeof CODECS)[number];
export const CODEC_TYPE: Record<Codec | 'none', number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

export interface StoredBatch {
  /** The segment file (base offset). */
  segment: number;
  baseOffset: number;
  lastOffset: number;
  records: number;
  compression: number;
  producerId: number;
  baseSequence: number;
}

/** Every batch of every segment file of `topic`-`partition` under a broker's log dir, read from disk. */
export function storedBatches(logDir: string, topic: string, partition = 0): StoredBatch[] {
  const dir = join(logDir, `${topic}-${partition}`);
  const out: StoredBatch[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    const segment = Number(name.slice(0, -4));
    forEachBatch(
      readFileSync(join(dir, name)),
      (h) =>
        void out.push({ segment, baseOffset: h.baseOffset, lastOffset: h.lastOffset, records: h.recordCount, compression: h.compression, producerId: h.producerId, baseSequence: h.baseSequence }),
      { allowPartialTail: true },
    );
  }
  return out;
}

/** How many records sit in batches compressed with `codec`. */
export function recordsWithCodec(batches: readonly StoredBatch[], codec: Codec): number {
  return batches.filter((b) => b.compression === CODEC_TYPE[codec]).reduce((n, b) => n + b.records, 0);
}
