import { describe, expect, it } from 'vitest';
import { decodeRequestFrame, encodeRequestFrame } from '../../framing/frames.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
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

  it('v3 (flexible) lays out request and response as Kafka 2.4 ControlledShutdown{Request,Response}.json says', () => {
    const v3 = ControlledShutdown.versions.get(3)!;
    // broker_id, broker_epoch, body tags
    expect(encodeBody(v3, 'Request', { brokerId: 1, brokerEpoch: 258 }).toString('hex')).toBe('00000001' + '0000000000000102' + '00');
    const res = { errorCode: 0, remainingPartitions: [{ topicName: 't', partitionIndex: 2 }] };
    const bytes = encodeBody(v3, 'Response', res);
    // error_code; remaining_partitions [1]: "t", 2, tags; body tags
    expect(bytes.toString('hex')).toBe('0000' + '02' + '0274' + '00000002' + '00' + '00');
    expect(decodeBody(v3, 'Response', bytes).value).toEqual(res);
  });

  it('v0 uses request header v0: no client id, in both the encoder and the decoder', () => {
    const frame = Buffer.concat(encodeRequestFrame(ControlledShutdown.versions.get(0)!, { correlationId: 5, clientId: 'ignored' }, { brokerId: 1 }));
    // size 12; api_key 7, api_version 0, correlation_id 5; broker_id 1
    expect(frame.toString('hex')).toBe('0000000c' + '0007' + '0000' + '00000005' + '00000001');
    expect(decodeRequestFrame(frame.subarray(4))).toMatchObject({ header: { apiKey: 7, apiVersion: 0, correlationId: 5, clientId: null }, request: { brokerId: 1, brokerEpoch: -1 } });
  });
});
