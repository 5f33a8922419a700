import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { StopReplica, stopReplicaPartitions } from './index.js';
import type { StopReplicaRequest } from './types.js';

const partitions = [
  { topicName: 'orders', partitionIndex: 0 },
  { topicName: 'orders', partitionIndex: 2 },
  { topicName: 'audit', partitionIndex: 1 },
];

const request = (v: number): StopReplicaRequest => ({
  controllerId: 1,
  controllerEpoch: 5,
  brokerEpoch: v >= 1 ? 77 : -1,
  deletePartitions: true,
  ungroupedPartitions: v === 0 ? partitions : [],
  topics: v >= 1 ? [{ name: 'orders', partitionIndexes: [0, 2] }, { name: 'audit', partitionIndexes: [1] }] : [],
});

const response = { errorCode: 0, partitionErrors: [{ topicName: 'orders', partitionIndex: 0, errorCode: 0 }] };

describe('StopReplica', () => {
  it.each([...StopReplica.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = StopReplica.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('encodes both versions from either shape', () => {
    expect(stopReplicaPartitions(request(1))).toEqual(partitions);
    for (const v of [0, 1]) {
      const codec = StopReplica.versions.get(v)!;
      expect(roundTrip(codec, 'Request', request(0)).bytes).toEqual(roundTrip(codec, 'Request', { ...request(1), brokerEpoch: request(0).brokerEpoch ?? -1 }).bytes);
    }
  });
});
