import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
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
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
