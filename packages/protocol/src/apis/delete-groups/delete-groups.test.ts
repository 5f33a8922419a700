import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { DeleteGroups } from './index.js';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from './types.js';

const request = (): DeleteGroupsRequest => ({ groupsNames: ['a', 'b'] });
const response = (): DeleteGroupsResponse => ({ throttleTimeMs: 0, results: [{ groupId: 'a', errorCode: 0 }, { groupId: 'b', errorCode: 68 }] });

describe('DeleteGroups', () => {
  it.each([...DeleteGroups.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DeleteGroups.versions.get(v)!;
    for (const [kind, value] of [['Request', request()], ['Response', response()]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v2 (flexible) lays out request and response as Kafka 2.4 DeleteGroups{Request,Response}.json says', () => {
    const v2 = DeleteGroups.versions.get(2)!;
    expect(v2.flexible).toBe(true);
    // groups_names compact array uvarint(1+1), "g" = 02 67; body tags 00
    expect(encodeBody(v2, 'Request', { groupsNames: ['g'] }).toString('hex')).toBe('02' + '0267' + '00');
    // throttle_time_ms i32 0; results uvarint(1+1): group_id "g", error_code 69 (GROUP_ID_NOT_FOUND), tags 00; body tags 00
    const res = encodeBody(v2, 'Response', { throttleTimeMs: 0, results: [{ groupId: 'g', errorCode: 69 }] });
    expect(res.toString('hex')).toBe('00000000' + '02' + '0267' + '0045' + '00' + '00');
    expect(decodeBody(v2, 'Request', Buffer.from('020267' + '00', 'hex')).value).toEqual({ groupsNames: ['g'] });
  });
});
