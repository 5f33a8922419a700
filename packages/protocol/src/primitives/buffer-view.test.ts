import { describe, expect, it } from 'vitest';
import { bufferView } from './buffer-view.js';

describe('bufferView', () => {
  it('is the Buffer subarray() makes, sharing memory with its parent', () => {
    const pool = Buffer.from('..hello world..');
    const parent = pool.subarray(2, 13); // a view at an offset, as pooled socket reads are
    const v = bufferView(parent, 6, 5);
    expect(Buffer.isBuffer(v)).toBe(true);
    expect(Object.getPrototypeOf(v)).toBe(Buffer.prototype);
    expect(v.toString()).toBe('world');
    expect(v.equals(parent.subarray(6, 11))).toBe(true);
    expect(v.buffer).toBe(pool.buffer);
    parent[6] = 0x57; // 'W'
    expect(v.toString()).toBe('World');
    expect(v.subarray(1).toString()).toBe('orld');
    expect(bufferView(parent, 11, 0).length).toBe(0);
  });

  it('refuses a range outside the buffer instead of reaching into the rest of its ArrayBuffer', () => {
    const pool = Buffer.from('0123456789');
    const parent = pool.subarray(2, 6);
    expect(() => bufferView(parent, 2, 3)).toThrow(RangeError);
    expect(() => bufferView(parent, -1, 2)).toThrow(RangeError);
    expect(() => bufferView(parent, 0, -1)).toThrow(RangeError);
    expect(() => bufferView(parent, Number.NaN, 1)).toThrow(RangeError);
    expect(bufferView(parent, 0, 4).toString()).toBe('2345');
  });
});
