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
});
