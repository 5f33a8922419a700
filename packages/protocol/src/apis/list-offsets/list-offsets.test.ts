import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { ListOffsets } from './index.js';
import type { ListOffsetsRequest, ListOffsetsResponse } from './types.js';

const request = (v: number): ListOffsetsRequest => ({
  replicaId: -1,
  isolationLevel: v >= 2 ? 1 : 0,
  topics: [
    {
      name: 'orders',
      partitions: [
        { partitionIndex: 0, currentLeaderEpoch: v >= 4 ? 7 : -1, timestamp: -1, maxNumOffsets: v === 0 ? 5 : 1 },
        { partitionIndex: 1, currentLeaderEpoch: -1, timestamp: 1_700_000_000_000, maxNumOffsets: 1 },
      ],
    },
  ],
});

const response = (v: number): ListOffsetsResponse => ({
  throttleTimeMs: v >= 2 ? 1 : 0,
  topics: [
    {
      name: 'orders',
      partitions: [
        { partitionIndex: 0, errorCode: 0, oldStyleOffsets: v === 0 ? [42, 10, 0] : [], timestamp: -1, offset: v >= 1 ? 42 : -1, leaderEpoch: v >= 4 ? 7 : -1 },
        { partitionIndex: 1, errorCode: 3, oldStyleOffsets: [], timestamp: -1, offset: -1, leaderEpoch: -1 },
      ],
    },
  ],
});

describe('ListOffsets', () => {
  it.each([...ListOffsets.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = ListOffsets.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it.each([
    [1, 'Request'],
    [1, 'Response'],
    [2, 'Request'],
    [2, 'Response'],
  ] as const)('decodes and re-encodes the captured kafkajs v%i %s byte for byte', (v, kind) => {
    const body = loadFixture(`listOffsets-v${v}_${kind.toLowerCase()}`);
    const codec = ListOffsets.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, kind, body);
    expect(leftover).toBe(0);
    expect((value as ListOffsetsRequest).topics[0]!.partitions.length).toBeGreaterThan(0);
    expect(encodeBody(codec, kind, value)).toEqual(body);
  });

  it('v0 carries max_num_offsets in the request and old_style_offsets in the response (ListOffset{Request,Response}.json)', () => {
    const v0 = ListOffsets.versions.get(0)!;
    const req = encodeBody(v0, 'Request', { replicaId: -1, topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -2, maxNumOffsets: 2 }] }] });
    // replica_id -1; topics [1]: "t"; partitions [1]: partition_index 0, timestamp -2, max_num_offsets 2
    expect(req.toString('hex')).toBe('ffffffff' + '00000001' + '000174' + '00000001' + '00000000' + 'fffffffffffffffe' + '00000002');
    const res = encodeBody(v0, 'Response', { topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0, oldStyleOffsets: [7, 0], timestamp: -1, offset: -1 }] }] });
    // no throttle time; topics [1]: "t"; partitions [1]: partition_index 0, error_code 0, old_style_offsets [7, 0]
    expect(res.toString('hex')).toBe('00000001' + '000174' + '00000001' + '00000000' + '0000' + '00000002' + '0000000000000007' + '0000000000000000');
  });
});
