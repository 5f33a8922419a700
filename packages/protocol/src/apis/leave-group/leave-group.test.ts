import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { LeaveGroup } from './index.js';
import type { LeaveGroupRequest, LeaveGroupResponse } from './types.js';

const request = (v: number): LeaveGroupRequest =>
  v >= 3
    ? { groupId: 'g', memberId: '', members: [{ memberId: 'a', groupInstanceId: null }, { memberId: 'b', groupInstanceId: 'i' }] }
    : { groupId: 'g', memberId: 'a', members: [{ memberId: 'a', groupInstanceId: null }] };
const response = (v: number): LeaveGroupResponse => ({
  throttleTimeMs: v >= 1 ? 4 : 0,
  errorCode: 0,
  members: v >= 3 ? [{ memberId: 'a', groupInstanceId: null, errorCode: 25 }] : [],
});

describe('LeaveGroup', () => {
  it.each([...LeaveGroup.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = LeaveGroup.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v3 leaves several members in one request', () => {
    const rt = roundTrip(LeaveGroup.versions.get(3)!, 'Request', request(3));
    expect(rt.decoded.members.map((m) => m.memberId)).toEqual(['a', 'b']);
  });

  it('v4 (flexible) lays out request and response as Kafka 2.4 LeaveGroup{Request,Response}.json says', () => {
    const v4 = LeaveGroup.versions.get(4)!;
    const req: LeaveGroupRequest = {
      groupId: 'g',
      memberId: '',
      members: [
        { memberId: 'm', groupInstanceId: 'i' },
        { memberId: '', groupInstanceId: 'j' },
      ],
    };
    const bytes = encodeBody(v4, 'Request', req);
    // group_id "g"; members uvarint(2+1): "m" "i" tags, "" "j" tags; body tags
    expect(bytes.toString('hex')).toBe('0267' + '03' + '026d' + '0269' + '00' + '01' + '026a' + '00' + '00');
    expect(decodeBody(v4, 'Request', bytes).value).toEqual(req);
    const res: LeaveGroupResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      members: [
        { memberId: 'm', groupInstanceId: 'i', errorCode: 0 },
        { memberId: '', groupInstanceId: 'j', errorCode: 25 },
      ],
    };
    const out = encodeBody(v4, 'Response', res);
    // throttle, error; members [2]: "m" "i" 0 tags, "" "j" 25 (UNKNOWN_MEMBER_ID) tags; body tags
    expect(out.toString('hex')).toBe('00000000' + '0000' + '03' + '026d' + '0269' + '0000' + '00' + '01' + '026a' + '0019' + '00' + '00');
    expect(decodeBody(v4, 'Response', out).value).toEqual(res);
  });
});
