import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { DeleteTopics } from './index.js';
import type { DeleteTopicsResponse } from './types.js';

const response = (v: number): DeleteTopicsResponse => ({
  throttleTimeMs: v >= 1 ? 9 : 0,
  responses: [
    { name: 'a', errorCode: 0 },
    { name: 'b', errorCode: 73 },
  ],
});

describe('DeleteTopics', () => {
  it.each([...DeleteTopics.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DeleteTopics.versions.get(v)!;
    for (const [kind, value] of [['Request', { topicNames: ['a', 'b'], timeoutMs: 3000 }], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it.each([
    [0, 'Request'],
    [1, 'Response'],
  ] as const)('decodes and re-encodes the captured kafkajs v%i %s byte for byte', (v, kind) => {
    const body = loadFixture(`deleteTopics-v${v}_${kind.toLowerCase()}`);
    const codec = DeleteTopics.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, kind, body);
    expect(leftover).toBe(0);
    expect(encodeBody(codec, kind, value)).toEqual(body);
  });

  it('v4 (flexible) lays out request and response as Kafka 2.4 DeleteTopics{Request,Response}.json says', () => {
    const v4 = DeleteTopics.versions.get(4)!;
    expect(v4.flexible).toBe(true);
    // topic_names compact array uvarint(2+1), "a" = 02 61, "bc" = 03 62 63; timeout_ms i32 3000; body tags 00
    const req = encodeBody(v4, 'Request', { topicNames: ['a', 'bc'], timeoutMs: 3000 });
    expect(req.toString('hex')).toBe('03' + '0261' + '036263' + '00000bb8' + '00');
    // throttle_time_ms i32; responses uvarint(2+1); each: name, error_code i16, tags 00; body tags 00
    const res = encodeBody(v4, 'Response', response(4));
    expect(res.toString('hex')).toBe('00000009' + '03' + '0261' + '0000' + '00' + '0262' + '0049' + '00' + '00');
    expect(decodeBody(v4, 'Response', res).value).toEqual(response(4));
  });
});
