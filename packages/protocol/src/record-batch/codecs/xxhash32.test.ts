import { describe, expect, it } from 'vitest';
import { xxhash32 } from './xxhash32.js';

describe('xxhash32', () => {
  it('matches the reference vectors', () => {
    expect(xxhash32(Buffer.alloc(0))).toBe(0x02cc5d05);
    expect(xxhash32(Buffer.from('a'))).toBe(0x550d7456);
    expect(xxhash32(Buffer.from('abc'))).toBe(0x32d153ff);
    expect(xxhash32(Buffer.from('Nobody inspects the spammish repetition'))).toBe(0xe2293b2f);
    expect(xxhash32(Buffer.alloc(0), 1)).toBe(0x0b2cb792);
  });

  it('gives the LZ4 frame header checksum Kafka writes for FLG 0x60, BD 0x40', () => {
    expect((xxhash32(Buffer.from([0x60, 0x40])) >>> 8) & 0xff).toBe(0x82);
  });
});
