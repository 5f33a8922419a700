import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { ElectLeaders } from './index.js';
import type { ElectLeadersRequest, ElectLeadersResponse } from './types.js';

const request = (v: number): ElectLeadersRequest => ({
  electionType: v >= 1 ? 1 : 0,
  topicPartitions: [
    { topic: 'orders', partitionId: [0, 2] },
    { topic: 'ünïcode', partitionId: [] },
  ],
  timeoutMs: 30_000,
});

const response = (v: number): ElectLeadersResponse => ({
  throttleTimeMs: 0,
  errorCode: 0,
  replicaElectionResults: [
    {
      topic: 'orders',
      partitionResult: [
        { partitionId: 0, errorCode: 0, errorMessage: null },
        { partitionId: 2, errorCode: v >= 1 ? 83 : 80, errorMessage: 'Failed to elect leader for partition orders-2' },
      ],
    },
  ],
});

const hex = (s: string) => s.replace(/\s+/g, '');

describe('ElectLeaders', () => {
  it.each([...ElectLeaders.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = ElectLeaders.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('keeps null topic_partitions (all partitions) distinct from an empty list in every version', () => {
    for (const v of [0, 1, 2]) {
      const codec = ElectLeaders.versions.get(v)!;
      expect(roundTrip(codec, 'Request', { electionType: 0, topicPartitions: null, timeoutMs: 1 }).decoded.topicPartitions).toBeNull();
      expect(roundTrip(codec, 'Request', { electionType: 0, topicPartitions: [], timeoutMs: 1 }).decoded.topicPartitions).toEqual([]);
    }
  });

  // Bytes laid out by hand from Kafka 2.4.1 ElectLeadersRequest.json / ElectLeadersResponse.json.
  const oneTopic = { topicPartitions: [{ topic: 't', partitionId: [0, 1] }], timeoutMs: 60_000 };
  it.each([
    [0, '00000001 0001 74 00000002 00000000 00000001 0000ea60'],
    [1, '01 00000001 0001 74 00000002 00000000 00000001 0000ea60'],
    // election_type; compact array (1+1); compact string "t"; compact int32 array (2+1); topic tags; timeout; body tags
    [2, '01 02 0274 03 00000000 00000001 00 0000ea60 00'],
  ])('v%i request bytes match Kafka\'s schema', (v, bytes) => {
    const codec = ElectLeaders.versions.get(v)!;
    const req: ElectLeadersRequest = { electionType: 1, ...oneTopic };
    if (v === 0) delete req.electionType;
    expect(encodeBody(codec, 'Request', req).toString('hex')).toBe(hex(bytes));
    const decoded = decodeBody(codec, 'Request', Buffer.from(hex(bytes), 'hex'));
    expect(decoded.leftover).toBe(0);
    expect(decoded.value).toEqual({ ...oneTopic, electionType: v === 0 ? 0 : 1 });
  });

  it.each([
    [0, 'ffffffff 0000ea60'],
    [1, '00 ffffffff 0000ea60'],
    [2, '00 00 0000ea60 00'],
  ])('v%i null topic_partitions bytes', (v, bytes) => {
    const codec = ElectLeaders.versions.get(v)!;
    expect(encodeBody(codec, 'Request', { electionType: 0, topicPartitions: null, timeoutMs: 60_000 }).toString('hex')).toBe(hex(bytes));
  });

  const results: ElectLeadersResponse = {
    throttleTimeMs: 0,
    errorCode: 0,
    replicaElectionResults: [
      {
        topic: 't',
        partitionResult: [
          { partitionId: 0, errorCode: 0, errorMessage: null },
          { partitionId: 1, errorCode: 84, errorMessage: 'no' },
        ],
      },
    ],
  };
  it.each([
    [0, '00000000 00000001 0001 74 00000002 00000000 0000 ffff 00000001 0054 0002 6e6f'],
    [1, '00000000 0000 00000001 0001 74 00000002 00000000 0000 ffff 00000001 0054 0002 6e6f'],
    // compact nullable string: 0 = null, 3 = "no"; a tag section after each partition, topic and the body
    [2, '00000000 0000 02 0274 03 00000000 0000 00 00 00000001 0054 036e6f 00 00 00'],
  ])('v%i response bytes match Kafka\'s schema', (v, bytes) => {
    const codec = ElectLeaders.versions.get(v)!;
    expect(encodeBody(codec, 'Response', results).toString('hex')).toBe(hex(bytes));
    const decoded = decodeBody(codec, 'Response', Buffer.from(hex(bytes), 'hex'));
    expect(decoded.leftover).toBe(0);
    expect(decoded.value).toEqual(results);
  });

  it('v0 has no top-level error code: it decodes as 0', () => {
    const codec = ElectLeaders.versions.get(0)!;
    expect(roundTrip(codec, 'Response', { ...results, errorCode: 41 }).decoded.errorCode).toBe(0);
  });
});
