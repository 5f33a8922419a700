import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
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
});
