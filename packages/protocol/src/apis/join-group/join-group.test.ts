import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { JoinGroup } from './index.js';
import type { JoinGroupRequest, JoinGroupResponse } from './types.js';

const request = (v: number): JoinGroupRequest => ({
  groupId: 'g',
  sessionTimeoutMs: 10000,
  rebalanceTimeoutMs: v >= 1 ? 30000 : 10000,
  memberId: '',
  groupInstanceId: v >= 5 ? 'instance-1' : null,
  protocolType: 'consumer',
  protocols: [
    { name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 1, 0, 1, 0x74, 0, 0, 0, 0]) },
    { name: 'roundrobin', metadata: Buffer.alloc(0) },
  ],
});
const response = (v: number): JoinGroupResponse => ({
  throttleTimeMs: v >= 2 ? 5 : 0,
  errorCode: 0,
  generationId: 3,
  protocolName: 'range',
  leader: 'm-1',
  memberId: 'm-1',
  members: [
    { memberId: 'm-1', groupInstanceId: v >= 5 ? 'instance-1' : null, metadata: Buffer.from([1, 2]) },
    { memberId: 'm-2', groupInstanceId: null, metadata: Buffer.alloc(0) },
  ],
});

describe('JoinGroup', () => {
  it.each([...JoinGroup.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = JoinGroup.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0 has no rebalance timeout on the wire: it decodes as the session timeout', () => {
    const codec = JoinGroup.versions.get(0)!;
    const rt = roundTrip(codec, 'Request', { ...request(0), rebalanceTimeoutMs: 99 });
    expect(rt.decoded.rebalanceTimeoutMs).toBe(10000);
  });

  it('v6 (flexible) lays out request and response as Kafka 2.4 JoinGroup{Request,Response}.json says', () => {
    const v6 = JoinGroup.versions.get(6)!;
    const req: JoinGroupRequest = {
      groupId: 'g',
      sessionTimeoutMs: 10000,
      rebalanceTimeoutMs: 30000,
      memberId: '',
      groupInstanceId: 'i',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from([0, 1]) }],
    };
    const bytes = encodeBody(v6, 'Request', req);
    expect(bytes.toString('hex')).toBe(
      '0267' + '00002710' + '00007530' + '01' + '0269' + // group_id "g", session 10000, rebalance 30000, member_id "", group_instance_id "i"
        '09' + Buffer.from('consumer').toString('hex') + // protocol_type
        '02' + '0672616e6765' + '030001' + '00' + // protocols [1]: name "range", metadata compact bytes [00 01], tags
        '00', // body tags
    );
    expect(decodeBody(v6, 'Request', bytes).value).toEqual(req);
    const res: JoinGroupResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 1,
      protocolName: 'range',
      leader: 'm',
      memberId: 'm',
      members: [{ memberId: 'm', groupInstanceId: null, metadata: Buffer.from([0xff]) }],
    };
    const out = encodeBody(v6, 'Response', res);
    // throttle, error, generation 1, protocol_name "range", leader "m", member_id "m", members [1]: "m", instance null, metadata [ff], tags; body tags
    expect(out.toString('hex')).toBe('00000000' + '0000' + '00000001' + '0672616e6765' + '026d' + '026d' + '02' + '026d' + '00' + '02ff' + '00' + '00');
    expect(decodeBody(v6, 'Response', out).value).toEqual(res);
  });
});
