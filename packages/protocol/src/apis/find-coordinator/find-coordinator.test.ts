import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
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

  it('v3 (flexible) lays out request and response as Kafka 2.4 FindCoordinator{Request,Response}.json says', () => {
    const v3 = FindCoordinator.versions.get(3)!;
    // key "g" compact; key_type 0; body tags
    expect(encodeBody(v3, 'Request', { key: 'g', keyType: 0 }).toString('hex')).toBe('0267' + '00' + '00');
    const res: FindCoordinatorResponse = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 1, host: 'h', port: 9092 };
    const bytes = encodeBody(v3, 'Response', res);
    // throttle_time_ms, error_code, error_message null, node_id 1, host "h", port 9092, body tags
    expect(bytes.toString('hex')).toBe('00000000' + '0000' + '00' + '00000001' + '0268' + '00002384' + '00');
    expect(decodeBody(v3, 'Response', bytes).value).toEqual(res);
  });
});
