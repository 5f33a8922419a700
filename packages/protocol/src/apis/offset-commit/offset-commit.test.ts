import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { OffsetCommit } from './index.js';
import type { OffsetCommitRequest, OffsetCommitResponse } from './types.js';

const request = (v: number): OffsetCommitRequest => ({
  groupId: 'g',
  generationId: v >= 1 ? 2 : -1,
  memberId: v >= 1 ? 'm' : '',
  groupInstanceId: v >= 7 ? 'i' : null,
  retentionTimeMs: v >= 2 && v <= 4 ? 60000 : -1,
  topics: [
    {
      name: 't',
      partitions: [
        { partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: v >= 6 ? 3 : -1, commitTimestamp: v === 1 ? 1700000000000 : -1, committedMetadata: 'm' },
        { partitionIndex: 1, committedOffset: 7, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null },
      ],
    },
  ],
});
const response = (v: number): OffsetCommitResponse => ({
  throttleTimeMs: v >= 3 ? 1 : 0,
  topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: 22 }] }],
});

describe('OffsetCommit', () => {
  it.each([...OffsetCommit.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = OffsetCommit.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
