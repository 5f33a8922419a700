import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { DeleteAcls } from './index.js';
import type { DeleteAclsRequest, DeleteAclsResponse } from './types.js';

const request = (v: number): DeleteAclsRequest => ({
  filters: [{ resourceTypeFilter: 1, resourceNameFilter: 'orders', patternTypeFilter: v >= 1 ? 1 : 3, principalFilter: null, hostFilter: '*', operation: 1, permissionType: 1 }],
});
const response = (v: number): DeleteAclsResponse => ({
  throttleTimeMs: 0,
  filterResults: [
    {
      errorCode: 0,
      errorMessage: null,
      matchingAcls: [
        { errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 'orders', patternType: v >= 1 ? 4 : 3, principal: 'User:bob', host: '*', operation: 3, permissionType: 3 },
      ],
    },
    { errorCode: 35, errorMessage: 'no', matchingAcls: [] },
  ],
});

describe('DeleteAcls', () => {
  it.each([...DeleteAcls.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DeleteAcls.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
