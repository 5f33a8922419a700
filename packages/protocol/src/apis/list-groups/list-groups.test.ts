import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { ListGroups } from './index.js';
import type { ListGroupsRequest, ListGroupsResponse } from './types.js';

const request = (): ListGroupsRequest => ({});
const response = (v: number): ListGroupsResponse => ({
  throttleTimeMs: v >= 1 ? 3 : 0,
  errorCode: 0,
  groups: [{ groupId: 'a', protocolType: 'consumer' }, { groupId: 'b', protocolType: '' }],
});

describe('ListGroups', () => {
  it.each([...ListGroups.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = ListGroups.versions.get(v)!;
    for (const [kind, value] of [['Request', request()], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v3 (flexible) lays out request and response as Kafka 2.4 ListGroups{Request,Response}.json says', () => {
    const v3 = ListGroups.versions.get(3)!;
    // no fields: just the body's empty tag section
    expect(encodeBody(v3, 'Request', {}).toString('hex')).toBe('00');
    const res: ListGroupsResponse = { throttleTimeMs: 0, errorCode: 0, groups: [{ groupId: 'g', protocolType: 'consumer' }] };
    const out = encodeBody(v3, 'Response', res);
    // throttle, error; groups [1]: "g", "consumer", tags; body tags
    expect(out.toString('hex')).toBe('00000000' + '0000' + '02' + '0267' + '09' + Buffer.from('consumer').toString('hex') + '00' + '00');
    expect(decodeBody(v3, 'Response', out).value).toEqual(res);
  });
});
