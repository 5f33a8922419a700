import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
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
    for (const [kind, value] of [['Request', request()], ['Response', response(v)]] as const) {
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

  it('v6 (flexible) lays out request and response as Kafka 2.4 OffsetFetch{Request,Response}.json says', () => {
    const v6 = OffsetFetch.versions.get(6)!;
    // group_id "g"; topics null (every committed partition) = uvarint 0; body tags
    expect(encodeBody(v6, 'Request', { groupId: 'g', topics: null }).toString('hex')).toBe('0267' + '00' + '00');
    // topics uvarint(1+1): "t", partition_indexes uvarint(2+1) [0, 1], topic tags; body tags
    const req = encodeBody(v6, 'Request', { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
    expect(req.toString('hex')).toBe('0267' + '02' + '0274' + '03' + '00000000' + '00000001' + '00' + '00');
    const res: OffsetFetchResponse = {
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, metadata: null, errorCode: 0 }] }],
      errorCode: 0,
    };
    const bytes = encodeBody(v6, 'Response', res);
    expect(bytes.toString('hex')).toBe(
      '00000000' + '02' + '0274' + '02' + // throttle_time_ms; topics [1] "t"; partitions [1]
        '00000000' + '0000000000000005' + 'ffffffff' + '00' + '0000' + '00' + // partition 0, offset 5, epoch -1, metadata null, error 0, tags
        '00' + '0000' + '00', // topic tags, error_code, body tags
    );
    expect(decodeBody(v6, 'Response', bytes).value).toEqual(res);
  });
});
