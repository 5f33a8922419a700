import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { CreateAcls } from './index.js';
import type { CreateAclsRequest, CreateAclsResponse } from './types.js';

const request = (v: number): CreateAclsRequest => ({
  creations: [
    { resourceType: 2, resourceName: 'orders', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 4, permissionType: 2 },
    { resourceType: 3, resourceName: 'app-', resourcePatternType: v >= 1 ? 4 : 3, principal: 'User:*', host: '10.0.0.1', operation: 3, permissionType: 3 },
  ],
});
const response = (): CreateAclsResponse => ({ throttleTimeMs: 0, results: [{ errorCode: 0, errorMessage: null }, { errorCode: 42, errorMessage: 'bad' }] });

describe('CreateAcls', () => {
  it.each([...CreateAcls.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = CreateAcls.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response()]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
