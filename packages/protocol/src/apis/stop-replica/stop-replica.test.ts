import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
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
    for (const v of [0, 1, 2]) {
      const codec = StopReplica.versions.get(v)!;
      expect(roundTrip(codec, 'Request', request(0)).bytes).toEqual(roundTrip(codec, 'Request', { ...request(1), brokerEpoch: request(0).brokerEpoch ?? -1 }).bytes);
    }
  });

  it('v2 (flexible) lays out request and response as Kafka 2.4 StopReplica{Request,Response}.json says', () => {
    const v2 = StopReplica.versions.get(2)!;
    const req: StopReplicaRequest = { controllerId: 1, controllerEpoch: 2, brokerEpoch: 3, deletePartitions: true, ungroupedPartitions: [], topics: [{ name: 't', partitionIndexes: [0, 1] }] };
    const bytes = encodeBody(v2, 'Request', req);
    // controller_id, controller_epoch, broker_epoch, delete_partitions; topics [1]: "t", partition_indexes [0, 1], tags; body tags
    expect(bytes.toString('hex')).toBe('00000001' + '00000002' + '0000000000000003' + '01' + '02' + '0274' + '03' + '00000000' + '00000001' + '00' + '00');
    expect(decodeBody(v2, 'Request', bytes).value).toEqual(req);
    const res = encodeBody(v2, 'Response', { errorCode: 0, partitionErrors: [{ topicName: 't', partitionIndex: 1, errorCode: 0 }] });
    expect(res.toString('hex')).toBe('0000' + '02' + '0274' + '00000001' + '0000' + '00' + '00');
  });
});
