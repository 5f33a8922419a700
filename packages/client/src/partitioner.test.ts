import { describe, expect, it } from 'vitest';
import { DefaultPartitioner, defaultPartition, murmur2 } from './partitioner.js';

describe('murmur2', () => {
  it("matches Kafka's test vectors", () => {
    const vectors: [string, number][] = [
      ['0', 971027396],
      ['1', -1993445489],
      ['128', -326012175],
      ['100:48069', 1009543857],
      ['kafka', -798503068],
      ['21', -973932308],
      ['', 275646681],
    ];
    for (const [key, hash] of vectors) expect(murmur2(Buffer.from(key)), key).toBe(hash);
  });

  it('hashes bytes, not UTF-16 code units', () => {
    expect(murmur2(Buffer.from('é'))).toBe(murmur2(Buffer.from([0xc3, 0xa9])));
  });
});

describe('defaultPartition', () => {
  it('is (murmur2 & 0x7fffffff) % n', () => {
    expect(defaultPartition('1', 7)).toBe((-1993445489 & 0x7fffffff) % 7);
    expect(defaultPartition(Buffer.from('kafka'), 3)).toBe((-798503068 & 0x7fffffff) % 3);
  });

  it('spreads keys evenly over partitions', () => {
    const n = 8;
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < 8000; i++) counts[defaultPartition(`key-${i}`, n)]!++;
    for (const c of counts) {
      expect(c).toBeGreaterThan(850);
      expect(c).toBeLessThan(1150);
    }
  });

  it('rejects a non-positive partition count', () => {
    expect(() => defaultPartition('a', 0)).toThrow(RangeError);
  });
});

describe('DefaultPartitioner', () => {
  it('keeps keyless records on one partition until a batch completes, then moves', () => {
    const p = new DefaultPartitioner();
    const first = p.partition('t', null, 6);
    for (let i = 0; i < 20; i++) expect(p.partition('t', null, 6)).toBe(first);
    p.onNewBatch('t', 6);
    const second = p.partition('t', null, 6);
    expect(second).not.toBe(first);
    expect(p.partition('t', undefined, 6)).toBe(second);
  });

  it('prefers partitions with a leader for keyless records, never for keyed ones', () => {
    const p = new DefaultPartitioner();
    for (let i = 0; i < 20; i++) {
      p.onNewBatch('t', 6, [4]);
      expect(p.partition('t', null, 6, [4])).toBe(4);
    }
    expect(p.partition('t', 'kafka', 6, [4])).toBe(defaultPartition('kafka', 6));
  });

  it('keeps sticky partitions per topic', () => {
    let seq = 0;
    const p = new DefaultPartitioner({ random: () => [0.1, 0.9][seq++ % 2]! });
    expect(p.partition('a', null, 10)).toBe(1);
    expect(p.partition('b', null, 10)).toBe(9);
    expect(p.partition('a', null, 10)).toBe(1);
  });
});
