import { describe, expect, it } from 'vitest';
import { readInt64Number } from './int64.js';

describe('readInt64Number', () => {
  it('reads what Number(readBigInt64BE) reads, for edge values and random bit patterns', () => {
    const values = [0n, 1n, -1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 53n - 1n, -(2n ** 53n) + 1n, 2n ** 53n + 1n,
      2n ** 63n - 1n, -(2n ** 63n), 1_700_000_000_000n, -1_700_000_000_123n];
    const buf = Buffer.alloc(9);
    for (const v of values) {
      buf.writeBigInt64BE(v, 1);
      expect(readInt64Number(buf, 1)).toBe(Number(buf.readBigInt64BE(1)));
    }
    for (let i = 0; i < 10_000; i++) {
      for (let j = 0; j < 9; j++) buf[j] = Math.floor(Math.random() * 256);
      expect(readInt64Number(buf, 1)).toBe(Number(buf.readBigInt64BE(1)));
    }
  });

  it('refuses to read past the end', () => {
    expect(() => readInt64Number(Buffer.alloc(7), 0)).toThrow(RangeError);
  });
});
