import { describe, expect, it } from 'vitest';
import { encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { DescribeAcls } from './index.js';
import type { DescribeAclsRequest, DescribeAclsResponse } from './types.js';

const request = (v: number): DescribeAclsRequest => ({
  resourceTypeFilter: 2,
  resourceNameFilter: null,
  patternTypeFilter: v >= 1 ? 2 : 3,
  principalFilter: 'User:alice',
  hostFilter: null,
  operation: 1,
  permissionType: 3,
});
const response = (v: number): DescribeAclsResponse => ({
  throttleTimeMs: 0,
  errorCode: 0,
  errorMessage: null,
  resources: [{ resourceType: 2, resourceName: 'orders', patternType: v >= 1 ? 4 : 3, acls: [{ principal: 'User:alice', host: '*', operation: 4, permissionType: 2 }] }],
});

describe('DescribeAcls', () => {
  it.each([...DescribeAcls.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DescribeAcls.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0 has no pattern type (it reads as LITERAL); v1 puts it after the name', () => {
    const v0 = encodeBody(DescribeAcls.versions.get(0)!, 'Request', request(0));
    const v1 = encodeBody(DescribeAcls.versions.get(1)!, 'Request', request(1));
    expect(v1.length).toBe(v0.length + 1);
    expect(v1.subarray(0, 3).toString('hex')).toBe('02ffff'); // TOPIC, null name
    expect(v1[3]).toBe(2); // MATCH
  });
});
