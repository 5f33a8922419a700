import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { DescribeGroups } from './index.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './codec.js';
import type { DescribeGroupsRequest, DescribeGroupsResponse } from './types.js';

const request = (v: number): DescribeGroupsRequest => ({ groups: ['a', 'b'], includeAuthorizedOperations: v >= 3 });
const response = (v: number): DescribeGroupsResponse => ({
  throttleTimeMs: v >= 1 ? 2 : 0,
  groups: [
    {
      errorCode: 0,
      groupId: 'a',
      groupState: 'Stable',
      protocolType: 'consumer',
      protocolData: 'range',
      members: [
        { memberId: 'm', groupInstanceId: v >= 4 ? 'i' : null, clientId: 'c', clientHost: '/127.0.0.1', memberMetadata: Buffer.from([1]), memberAssignment: Buffer.from([2]) },
      ],
      authorizedOperations: v >= 3 ? 0 : AUTHORIZED_OPERATIONS_OMITTED,
    },
    { errorCode: 16, groupId: 'b', groupState: 'Dead', protocolType: '', protocolData: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED },
  ],
});

describe('DescribeGroups', () => {
  it.each([...DescribeGroups.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DescribeGroups.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
