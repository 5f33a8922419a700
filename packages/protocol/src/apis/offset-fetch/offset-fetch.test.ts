import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { OffsetFetch } from './index.js';
import type { OffsetFetchRequest, OffsetFetchResponse } from './types.js';

const request = (): OffsetFetchRequest => ({ groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1, 2] }] });
const response = (v: number): OffsetFetchResponse => ({
  throttleTimeMs: v >= 3 ? 6 : 0,
  topics: [
    {
      name: 't',
      partitions: [
        { partitionIndex: 0, committedOffset: 10, committedLeaderEpoch: v >= 5 ? 1 : -1, metadata: '', errorCode: 0 },
        { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode: 0 },
      ],
    },
  ],
  errorCode: v >= 2 ? 14 : 0,
});

describe('OffsetFetch', () => {
  it.each([...OffsetFetch.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = OffsetFetch.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v2+ send null topics to ask for every committed partition; v0-1 cannot', () => {
    expect(roundTrip(OffsetFetch.versions.get(2)!, 'Request', { groupId: 'g', topics: null }).decoded.topics).toBeNull();
    expect(roundTrip(OffsetFetch.versions.get(1)!, 'Request', { groupId: 'g', topics: null }).decoded.topics).toEqual([]);
  });
});
