import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
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
});
