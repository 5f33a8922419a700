import { describe, expect, it } from 'vitest';
import { encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { OffsetDelete } from './index.js';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from './types.js';

const request = (): OffsetDeleteRequest => ({ groupId: 'g', topics: [{ name: 'orders', partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] }] });
const response = (): OffsetDeleteResponse => ({
  errorCode: 0,
  throttleTimeMs: 0,
  topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: 86 }] }],
});

describe('OffsetDelete', () => {
  it('v0 round-trips requests and responses and is not flexible', () => {
    const codec = OffsetDelete.versions.get(0)!;
    expect(codec.flexible).toBe(false);
    expect([...OffsetDelete.versions.keys()]).toEqual([0]);
    for (const [kind, value] of [['Request', request()], ['Response', response()]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('lays fields out as OffsetDelete*.json: the response error code comes before the throttle time', () => {
    const v0 = OffsetDelete.versions.get(0)!;
    expect(encodeBody(v0, 'Request', { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 2 }] }] }).toString('hex')).toBe(
      '000167' + '00000001' + '000174' + '00000001' + '00000002',
    );
    expect(encodeBody(v0, 'Response', { errorCode: 69, throttleTimeMs: 3, topics: [] }).toString('hex')).toBe('0045' + '00000003' + '00000000');
  });
});
