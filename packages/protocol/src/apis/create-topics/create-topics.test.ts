import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { CreateTopics } from './index.js';
import type { CreateTopicsRequest, CreateTopicsResponse } from './types.js';

const request = (v: number): CreateTopicsRequest => ({
  topics: [
    { name: 'orders', numPartitions: 3, replicationFactor: 2, assignments: [], configs: [{ name: 'cleanup.policy', value: 'delete' }, { name: 'x', value: null }] },
    { name: 'placed', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }], configs: [] },
  ],
  timeoutMs: 5000,
  validateOnly: v >= 1,
});

const response = (v: number): CreateTopicsResponse => ({
  throttleTimeMs: v >= 2 ? 3 : 0,
  topics: [
    { name: 'orders', errorCode: 0, errorMessage: null },
    { name: 'placed', errorCode: 36, errorMessage: v >= 1 ? "Topic 'placed' already exists." : null },
  ],
});

describe('CreateTopics', () => {
  it.each([...CreateTopics.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = CreateTopics.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it.each([
    [0, 'Request'],
    [0, 'Response'],
    [1, 'Request'],
    [1, 'Response'],
    [2, 'Request'],
    [2, 'Response'],
  ] as const)('decodes and re-encodes the captured kafkajs v%i %s byte for byte', (v, kind) => {
    const body = loadFixture(`createTopics-v${v}_${kind.toLowerCase()}`);
    const codec = CreateTopics.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, kind, body);
    expect(leftover).toBe(0);
    expect((value as CreateTopicsResponse).topics.length).toBeGreaterThan(0);
    expect(encodeBody(codec, kind, value)).toEqual(body);
  });
});
