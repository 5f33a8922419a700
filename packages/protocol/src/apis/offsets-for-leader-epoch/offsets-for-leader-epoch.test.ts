import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { OffsetForLeaderEpoch, OffsetsForLeaderEpoch } from './index.js';
import type { OffsetsForLeaderEpochRequest, OffsetsForLeaderEpochResponse } from './types.js';

const request = (v: number): OffsetsForLeaderEpochRequest => ({
  replicaId: v >= 3 ? 2 : -2,
  topics: [{ topic: 'orders', partitions: [{ partition: 0, currentLeaderEpoch: v >= 2 ? 5 : -1, leaderEpoch: 4 }] }],
});
const response = (v: number): OffsetsForLeaderEpochResponse => ({
  throttleTimeMs: v >= 2 ? 1 : 0,
  topics: [
    {
      topic: 'orders',
      partitions: [
        { errorCode: 0, partition: 0, leaderEpoch: v >= 1 ? 4 : -1, endOffset: 1234 },
        { errorCode: 74, partition: 1, leaderEpoch: -1, endOffset: -1 },
      ],
    },
  ],
});

describe('OffsetsForLeaderEpoch', () => {
  it('is api key 23, also exported under Kafka name OffsetForLeaderEpoch', () => {
    expect(OffsetsForLeaderEpoch.apiKey).toBe(23);
    expect(OffsetForLeaderEpoch).toBe(OffsetsForLeaderEpoch);
  });

  it.each([...OffsetsForLeaderEpoch.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = OffsetsForLeaderEpoch.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
