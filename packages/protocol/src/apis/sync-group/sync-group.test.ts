import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { SyncGroup } from './index.js';
import type { SyncGroupRequest, SyncGroupResponse } from './types.js';

const request = (v: number): SyncGroupRequest => ({
  groupId: 'g',
  generationId: 4,
  memberId: 'm-1',
  groupInstanceId: v >= 3 ? 'i' : null,
  assignments: [{ memberId: 'm-1', assignment: Buffer.from([0, 0, 0, 0, 0, 0]) }],
});
const response = (v: number): SyncGroupResponse => ({ throttleTimeMs: v >= 1 ? 1 : 0, errorCode: 27, assignment: Buffer.from([9]) });

describe('SyncGroup', () => {
  it.each([...SyncGroup.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = SyncGroup.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v4 (flexible) lays out request and response as Kafka 2.4 SyncGroup{Request,Response}.json says', () => {
    const v4 = SyncGroup.versions.get(4)!;
    const req: SyncGroupRequest = { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null, assignments: [{ memberId: 'm', assignment: Buffer.from([1]) }] };
    const bytes = encodeBody(v4, 'Request', req);
    // group_id, generation_id 1, member_id, group_instance_id null; assignments [1]: "m", compact bytes [01], tags; body tags
    expect(bytes.toString('hex')).toBe('0267' + '00000001' + '026d' + '00' + '02' + '026d' + '0201' + '00' + '00');
    expect(decodeBody(v4, 'Request', bytes).value).toEqual(req);
    const res: SyncGroupResponse = { throttleTimeMs: 0, errorCode: 0, assignment: Buffer.from([1, 2]) };
    const out = encodeBody(v4, 'Response', res);
    expect(out.toString('hex')).toBe('00000000' + '0000' + '030102' + '00');
    expect(decodeBody(v4, 'Response', out).value).toEqual(res);
  });
});
