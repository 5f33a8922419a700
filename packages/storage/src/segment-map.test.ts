import { describe, expect, it } from 'vitest';
import { SegmentMap } from './segment-map.js';
import type { LogSegment } from './segment.js';

const seg = (baseOffset: number) => ({ baseOffset }) as LogSegment;

describe('SegmentMap', () => {
  it('keeps segments sorted and finds the one containing an offset', () => {
    const map = new SegmentMap();
    for (const base of [100, 0, 50, 200]) map.add(seg(base));
    expect(map.baseOffsets()).toEqual([0, 50, 100, 200]);
    expect(map.from(75).map((s) => s.baseOffset)).toEqual([50, 100, 200]);
    expect(map.from(100).map((s) => s.baseOffset)).toEqual([100, 200]);
    expect(map.from(-5).map((s) => s.baseOffset)).toEqual([0, 50, 100, 200]);
    expect(map.from(10_000).map((s) => s.baseOffset)).toEqual([200]);
    const fifty = map.from(50)[0]!;
    map.remove(fifty);
    expect(map.baseOffsets()).toEqual([0, 100, 200]);
    expect(map.add(seg(100))).toBeDefined();
    expect([map.first()!.baseOffset, map.last()!.baseOffset, map.size]).toEqual([0, 200, 3]);
  });
});
