import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { CreatePartitions } from './index.js';
import type { CreatePartitionsRequest, CreatePartitionsResponse } from './types.js';

const request: CreatePartitionsRequest = {
  topics: [
    { name: 'a', count: 6, assignments: null },
    { name: 'b', count: 3, assignments: [{ brokerIds: [1, 2] }, { brokerIds: [2, 3] }] },
  ],
  timeoutMs: 5000,
  validateOnly: false,
};
const response: CreatePartitionsResponse = {
  throttleTimeMs: 0,
  results: [
    { name: 'a', errorCode: 0, errorMessage: null },
    { name: 'b', errorCode: 37, errorMessage: 'Topic currently has 3 partitions, which is higher than the requested 2.' },
  ],
};

describe('CreatePartitions', () => {
  it.each([...CreatePartitions.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = CreatePartitions.versions.get(v)!;
    for (const [kind, value] of [['Request', request], ['Response', response]] as const) {
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
    const body = loadFixture(`createPartitions-v${v}_${kind.toLowerCase()}`);
    const codec = CreatePartitions.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, kind, body);
    expect(leftover).toBe(0);
    expect(encodeBody(codec, kind, value)).toEqual(body);
  });
});
