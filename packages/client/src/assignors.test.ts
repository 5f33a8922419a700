import { describe, expect, it } from 'vitest';
import { rangeAssignor, roundRobinAssignor } from './assignors.js';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from './consumer-protocol.js';

const plain = (a: Map<string, Map<string, number[]>>) => Object.fromEntries([...a].map(([m, t]) => [m, Object.fromEntries(t)]));

describe('assignors', () => {
  it('range gives contiguous ranges per topic, the first members one extra', () => {
    const a = rangeAssignor.assign(
      [
        { memberId: 'b', topics: ['t'] },
        { memberId: 'a', topics: ['t', 'u'] },
      ],
      new Map([
        ['t', 5],
        ['u', 2],
      ]),
    );
    expect(plain(a)).toEqual({ a: { t: [0, 1, 2], u: [0, 1] }, b: { t: [3, 4] } });
  });

  it('roundrobin deals partitions in turn, skipping members not subscribed', () => {
    const a = roundRobinAssignor().assign(
      [
        { memberId: 'a', topics: ['t'] },
        { memberId: 'b', topics: ['t', 'u'] },
      ],
      new Map([
        ['t', 3],
        ['u', 2],
      ]),
    );
    expect(plain(a)).toEqual({ a: { t: [0, 2] }, b: { t: [1], u: [0, 1] } });
  });
});

describe('consumer protocol', () => {
  it('encodes Subscription and Assignment in the Java consumer layout', () => {
    const s = encodeSubscription({ version: 0, topics: ['t'], userData: null });
    expect(s.toString('hex')).toBe('0000' + '00000001' + '000174' + 'ffffffff');
    expect(decodeSubscription(s)).toEqual({ version: 0, topics: ['t'], userData: null });
    const a = encodeAssignment({ version: 0, partitions: new Map([['t', [0, 2]]]), userData: null });
    expect(a.toString('hex')).toBe('0000' + '00000001' + '000174' + '00000002' + '00000000' + '00000002' + 'ffffffff');
    expect(decodeAssignment(a).partitions).toEqual(new Map([['t', [0, 2]]]));
    expect(decodeAssignment(Buffer.alloc(0)).partitions.size).toBe(0);
  });
});
