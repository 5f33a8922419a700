import { describe, expect, it } from 'vitest';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

// The number fast paths (int32 on write, 7 bytes on read) must agree with the BigInt encoding everywhere.
describe('zigzag varlong', () => {
  const values = [0, 1, -1, 63, -64, 64, 127, 128, -129, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 2 ** 40 + 3, -(2 ** 47), 2 ** 48, -(2 ** 48) - 1, 2 ** 53 - 1, -(2 ** 53) + 1];

  it('round-trips small and large values', () => {
    const w = new Writer(8);
    for (const v of values) w.varlong(v);
    const r = new Reader(w.toBuffer());
    expect(values.map(() => r.varlong())).toEqual(values);
    expect(r.remaining).toBe(0);
  });

  it('writes numbers and bigints to the same bytes', () => {
    for (const v of values) expect(new Writer().varlong(v).toBuffer().equals(new Writer().varlong(BigInt(v)).toBuffer())).toBe(true);
  });
});
