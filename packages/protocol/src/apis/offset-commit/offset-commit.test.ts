import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
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

  it('v8 (flexible) lays out request and response as Kafka 2.4 OffsetCommit{Request,Response}.json says', () => {
    const v8 = OffsetCommit.versions.get(8)!;
    const req: OffsetCommitRequest = {
      groupId: 'g',
      generationId: 2,
      memberId: 'm',
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' }] }],
    };
    const bytes = encodeBody(v8, 'Request', req);
    expect(bytes.toString('hex')).toBe(
      '0267' + '00000002' + '026d' + '00' + // group_id "g", generation_id 2, member_id "m", group_instance_id null
        '02' + '0274' + '02' + // topics uvarint(1+1): "t", partitions uvarint(1+1)
        '00000000' + '000000000000002a' + 'ffffffff' + '01' + '00' + // partition 0, offset 42, leader epoch -1, metadata "", tags
        '00' + '00', // topic tags, body tags
    );
    expect(decodeBody(v8, 'Request', bytes).value).toEqual(req);
    const res = encodeBody(v8, 'Response', { throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    expect(res.toString('hex')).toBe('00000000' + '02' + '0274' + '02' + '00000000' + '0000' + '00' + '00' + '00');
  });
});
