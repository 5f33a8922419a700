import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
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

  it('v5 (flexible) lays out request and response as Kafka 2.4 DescribeGroups{Request,Response}.json says', () => {
    const v5 = DescribeGroups.versions.get(5)!;
    // groups [1] "g", include_authorized_operations true, body tags
    expect(encodeBody(v5, 'Request', { groups: ['g'], includeAuthorizedOperations: true }).toString('hex')).toBe('02' + '0267' + '01' + '00');
    const res: DescribeGroupsResponse = {
      throttleTimeMs: 0,
      groups: [
        {
          errorCode: 0,
          groupId: 'g',
          groupState: 'Stable',
          protocolType: 'consumer',
          protocolData: 'range',
          members: [{ memberId: 'm', groupInstanceId: 'i', clientId: 'c', clientHost: '/h', memberMetadata: Buffer.alloc(0), memberAssignment: Buffer.from([1]) }],
          authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        },
      ],
    };
    const out = encodeBody(v5, 'Response', res);
    expect(out.toString('hex')).toBe(
      '00000000' + '02' + // throttle_time_ms, groups [1]
        '0000' + '0267' + '07' + Buffer.from('Stable').toString('hex') + '09' + Buffer.from('consumer').toString('hex') + '0672616e6765' +
        '02' + '026d' + '0269' + '0263' + '032f68' + '01' + '0201' + '00' + // members [1]: "m", "i", "c", "/h", metadata empty, assignment [01], tags
        '80000000' + '00' + // authorized_operations Integer.MIN_VALUE, group tags
        '00', // body tags
    );
    expect(decodeBody(v5, 'Response', out).value).toEqual(res);
  });
});
