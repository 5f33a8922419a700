import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { Metadata } from './index.js';
import type { MetadataRequest, MetadataResponse } from './types.js';

const request = (v: number): MetadataRequest => ({
  topics: [{ name: 'orders' }, { name: 'ünïcode' }],
  allowAutoTopicCreation: v >= 4 ? false : true,
  includeClusterAuthorizedOperations: v >= 8,
  includeTopicAuthorizedOperations: v >= 8,
});

const response = (v: number): MetadataResponse => ({
  throttleTimeMs: v >= 3 ? 5 : 0,
  brokers: [
    { nodeId: 1, host: 'broker-1', port: 9092, rack: v >= 1 ? 'rack-a' : null },
    { nodeId: 2, host: 'broker-2', port: 9093, rack: null },
  ],
  clusterId: v >= 2 ? 'cluster-x' : null,
  controllerId: v >= 1 ? 2 : -1,
  topics: [
    {
      errorCode: 0,
      name: 'orders',
      isInternal: false,
      partitions: [
        { errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: v >= 7 ? 3 : -1, replicaNodes: [1, 2], isrNodes: [1], offlineReplicas: v >= 5 ? [2] : [] },
      ],
      topicAuthorizedOperations: v >= 8 ? 248 : -2147483648,
    },
    { errorCode: 3, name: 'missing', isInternal: v >= 1, partitions: [], topicAuthorizedOperations: -2147483648 },
  ],
  clusterAuthorizedOperations: v >= 8 ? 0 : -2147483648,
});

describe('Metadata', () => {
  it.each([...Metadata.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = Metadata.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('keeps "all topics" (null) distinct from "no topics" ([]) in v1+, and maps v0 [] to all', () => {
    for (const v of [1, 4, 8]) {
      const codec = Metadata.versions.get(v)!;
      expect(roundTrip(codec, 'Request', { topics: null }).decoded.topics).toBeNull();
      expect(roundTrip(codec, 'Request', { topics: [] }).decoded.topics).toEqual([]);
    }
    const v0 = Metadata.versions.get(0)!;
    expect(roundTrip(v0, 'Request', { topics: null }).bytes.toString('hex')).toBe('00000000');
    expect(roundTrip(v0, 'Request', { topics: [] }).decoded.topics).toBeNull();
  });

  it('decodes and re-encodes the captured kafkajs v5 response byte for byte', () => {
    const body = loadFixture('metadata-v5_response');
    const v5 = Metadata.versions.get(5)!;
    const { value, leftover } = decodeBody(v5, 'Response', body);
    const res = value as MetadataResponse;
    expect(leftover).toBe(0);
    expect(res.brokers.length).toBeGreaterThan(0);
    expect(res.brokers[0]).toMatchObject({ host: expect.any(String), port: expect.any(Number) });
    expect(res.topics[0]!.partitions[0]).toMatchObject({ offlineReplicas: expect.any(Array) });
    expect(encodeBody(v5, 'Response', res)).toEqual(body);
  });
});

describe('Metadata v9 (flexible)', () => {
  it('encodes a request as Kafka 2.4 MetadataRequest.json lays it out: compact arrays and strings, a tag section per struct', () => {
    const bytes = encodeBody(Metadata.versions.get(9)!, 'Request', {
      topics: [{ name: 'abc' }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    // topics: uvarint(1+1), name uvarint(3+1) "abc", topic tags 0; three bools; body tags 0
    expect(bytes.toString('hex')).toBe('02' + '04616263' + '00' + '01' + '00' + '00' + '00');
    // null topics (all) is uvarint 0
    const all = encodeBody(Metadata.versions.get(9)!, 'Request', { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(all.toString('hex')).toBe('00' + '00' + '00' + '00' + '00');
  });

  it('skips unknown tagged fields a newer client adds', () => {
    // topics [ "t" with tag 7 = 2 bytes ], bools, then body tags: one field, tag 3, 1 byte
    const body = Buffer.from('02' + '0274' + '01' + '07' + '02' + 'abcd' + '01' + '00' + '00' + '01' + '03' + '01' + 'ff', 'hex');
    const { value, leftover } = decodeBody(Metadata.versions.get(9)!, 'Request', body);
    expect(value).toEqual({ topics: [{ name: 't' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(leftover).toBe(0);
  });
});
