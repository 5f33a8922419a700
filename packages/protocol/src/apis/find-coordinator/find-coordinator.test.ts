import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { FindCoordinator } from './index.js';
import type { FindCoordinatorRequest, FindCoordinatorResponse } from './types.js';

const request = (v: number): FindCoordinatorRequest => (v >= 1 ? { key: 'my-group', keyType: 0 } : { key: 'my-group' });
const response = (v: number): FindCoordinatorResponse =>
  v >= 1
    ? { throttleTimeMs: 3, errorCode: 0, errorMessage: null, nodeId: 2, host: 'localhost', port: 9093 }
    : { errorCode: 15, nodeId: -1, host: '', port: -1 };

describe('FindCoordinator', () => {
  it.each([...FindCoordinator.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = FindCoordinator.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0 carries only the key and the coordinator address', () => {
    const rt = roundTrip(FindCoordinator.versions.get(0)!, 'Request', { key: 'g' });
    expect(rt.bytes).toEqual(Buffer.from([0, 1, 0x67]));
  });
});
