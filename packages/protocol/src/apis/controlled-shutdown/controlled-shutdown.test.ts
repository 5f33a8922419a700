import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { ControlledShutdown } from './index.js';

describe('ControlledShutdown', () => {
  it.each([...ControlledShutdown.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = ControlledShutdown.versions.get(v)!;
    const request = { brokerId: 3, brokerEpoch: v >= 2 ? 4_294_967_296 : -1 };
    const response = { errorCode: 0, remainingPartitions: [{ topicName: 'orders', partitionIndex: 2 }] };
    for (const [kind, value] of [['Request', request], ['Response', response]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v2 request is broker_id i32 then broker_epoch i64', () => {
    expect(roundTrip(ControlledShutdown.versions.get(2)!, 'Request', { brokerId: 1, brokerEpoch: 258 }).bytes.toString('hex')).toBe('000000010000000000000102');
  });
});
