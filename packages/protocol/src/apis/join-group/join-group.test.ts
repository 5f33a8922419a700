import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
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
});
