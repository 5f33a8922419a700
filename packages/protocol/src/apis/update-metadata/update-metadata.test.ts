import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { UpdateMetadata, updateMetadataPartitionStates } from './index.js';
import type { UpdateMetadataBroker, UpdateMetadataPartitionState, UpdateMetadataRequest } from './types.js';

const state = (v: number, topicName: string, partitionIndex: number): UpdateMetadataPartitionState => ({
  topicName,
  partitionIndex,
  controllerEpoch: 3,
  leader: partitionIndex === 1 ? -2 : 1,
  leaderEpoch: 7,
  isr: [1, 2],
  zkVersion: 11,
  replicas: [1, 2, 3],
  offlineReplicas: v >= 4 ? [3] : [],
});

const broker = (v: number, id: number): UpdateMetadataBroker =>
  v === 0
    ? { id, v0Host: `broker-${id}`, v0Port: 9092, endpoints: [], rack: null }
    : {
        id,
        v0Host: '',
        v0Port: 0,
        endpoints: [{ port: 9092, host: `broker-${id}`, listener: v >= 3 ? 'PLAINTEXT' : '', securityProtocol: 0 }],
        rack: v >= 2 && id === 1 ? 'rack-a' : null,
      };

const request = (v: number): UpdateMetadataRequest => {
  const states = [state(v, 'orders', 0), state(v, 'orders', 1), state(v, 'audit', 0)];
  return {
    controllerId: 2,
    controllerEpoch: 3,
    brokerEpoch: v >= 5 ? 99 : -1,
    ungroupedPartitionStates: v <= 4 ? states : [],
    topicStates: v >= 5 ? [{ topicName: 'orders', partitionStates: states.slice(0, 2) }, { topicName: 'audit', partitionStates: states.slice(2) }] : [],
    liveBrokers: [broker(v, 1), broker(v, 2)],
  };
};

describe('UpdateMetadata', () => {
  it.each([...UpdateMetadata.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = UpdateMetadata.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', { errorCode: 11 }]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('encodes v0 brokers from endpoints and v1+ endpoints from v0 host/port', () => {
    const v0 = UpdateMetadata.versions.get(0)!;
    const v5 = UpdateMetadata.versions.get(5)!;
    const fromEndpoints = roundTrip(v0, 'Request', { ...request(5), liveBrokers: [broker(5, 1)] }).decoded;
    expect(fromEndpoints.liveBrokers[0]).toMatchObject({ id: 1, v0Host: 'broker-1', v0Port: 9092 });
    expect(updateMetadataPartitionStates(fromEndpoints)).toHaveLength(3);
    const fromV0 = roundTrip(v5, 'Request', { ...request(0), liveBrokers: [broker(0, 4)] }).decoded;
    expect(fromV0.liveBrokers[0]!.endpoints).toEqual([{ port: 9092, host: 'broker-4', listener: 'PLAINTEXT', securityProtocol: 0 }]);
    expect(fromV0.topicStates!.map((t) => t.topicName)).toEqual(['orders', 'audit']);
  });

  it('v6 (flexible) lays out request and response as Kafka 2.4 UpdateMetadata{Request,Response}.json says', () => {
    const v6 = UpdateMetadata.versions.get(6)!;
    const req: UpdateMetadataRequest = {
      controllerId: 1,
      controllerEpoch: 2,
      brokerEpoch: 3,
      ungroupedPartitionStates: [],
      topicStates: [{ topicName: 't', partitionStates: [{ topicName: 't', partitionIndex: 0, controllerEpoch: 2, leader: 1, leaderEpoch: 5, isr: [1], zkVersion: 7, replicas: [1], offlineReplicas: [] }] }],
      liveBrokers: [{ id: 1, v0Host: '', v0Port: 0, endpoints: [{ port: 9092, host: 'h', listener: 'PLAINTEXT', securityProtocol: 0 }], rack: null }],
    };
    const bytes = encodeBody(v6, 'Request', req);
    expect(bytes.toString('hex')).toBe(
      '00000001' + '00000002' + '0000000000000003' + // controller_id, controller_epoch, broker_epoch
        '02' + '0274' + '02' + // topic_states [1]: "t", partition_states [1]
        '00000000' + '00000002' + '00000001' + '00000005' + '0200000001' + '00000007' + '0200000001' + '01' + '00' + // ..., offline_replicas [], tags
        '00' + // topic tags
        '02' + '00000001' + // live_brokers [1]: id 1
        '02' + '00002384' + '0268' + '0a' + Buffer.from('PLAINTEXT').toString('hex') + '0000' + '00' + // endpoints [1]: port, host, listener, security_protocol, tags
        '00' + '00' + // rack null, broker tags
        '00', // body tags
    );
    expect(decodeBody(v6, 'Request', bytes).value).toEqual(req);
    expect(encodeBody(v6, 'Response', { errorCode: 0 }).toString('hex')).toBe('0000' + '00');
  });
});
