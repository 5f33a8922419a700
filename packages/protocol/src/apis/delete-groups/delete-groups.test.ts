import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { DeleteGroups } from './index.js';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from './types.js';

const request = (): DeleteGroupsRequest => ({ groupsNames: ['a', 'b'] });
const response = (): DeleteGroupsResponse => ({ throttleTimeMs: 0, results: [{ groupId: 'a', errorCode: 0 }, { groupId: 'b', errorCode: 68 }] });

describe('DeleteGroups', () => {
  it.each([...DeleteGroups.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DeleteGroups.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
