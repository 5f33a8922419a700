import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { Heartbeat } from './index.js';
import type { HeartbeatRequest, HeartbeatResponse } from './types.js';

const request = (v: number): HeartbeatRequest => ({ groupId: 'g', generationId: 7, memberId: 'm', groupInstanceId: v >= 3 ? 'i' : null });
const response = (v: number): HeartbeatResponse => ({ throttleTimeMs: v >= 1 ? 2 : 0, errorCode: 27 });

describe('Heartbeat', () => {
  it.each([...Heartbeat.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = Heartbeat.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v4 (flexible) lays out request and response as Kafka 2.4 Heartbeat{Request,Response}.json says', () => {
    const v4 = Heartbeat.versions.get(4)!;
    const req: HeartbeatRequest = { groupId: 'g', generationId: 3, memberId: 'm', groupInstanceId: null };
    // group_id "g", generation_id 3, member_id "m", group_instance_id null, body tags
    const bytes = encodeBody(v4, 'Request', req);
    expect(bytes.toString('hex')).toBe('0267' + '00000003' + '026d' + '00' + '00');
    expect(decodeBody(v4, 'Request', bytes).value).toEqual(req);
    // throttle_time_ms 0, error_code 27 (REBALANCE_IN_PROGRESS), body tags
    expect(encodeBody(v4, 'Response', { throttleTimeMs: 0, errorCode: 27 }).toString('hex')).toBe('00000000' + '001b' + '00');
  });
});
