import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { LeaderAndIsr, leaderAndIsrPartitionStates } from './index.js';
import type { LeaderAndIsrPartitionState, LeaderAndIsrRequest } from './types.js';

const state = (v: number, topicName: string, partitionIndex: number): LeaderAndIsrPartitionState => ({
  topicName,
  partitionIndex,
  controllerEpoch: 3,
  leader: 1,
  leaderEpoch: 7,
  isr: [1, 2],
  zkVersion: 11,
  replicas: [1, 2, 3],
  addingReplicas: v >= 3 && partitionIndex === 1 ? [3] : [],
  removingReplicas: v >= 3 && partitionIndex === 1 ? [1] : [],
  isNew: v >= 1 && partitionIndex === 0,
});

const request = (v: number): LeaderAndIsrRequest => {
  const states = [state(v, 'orders', 0), state(v, 'orders', 1), state(v, 'audit', 0)];
  return {
    controllerId: 2,
    controllerEpoch: 3,
    brokerEpoch: v >= 2 ? 4_294_967_300 : -1,
    ungroupedPartitionStates: v <= 1 ? states : [],
    topicStates: v >= 2 ? [{ topicName: 'orders', partitionStates: states.slice(0, 2) }, { topicName: 'audit', partitionStates: states.slice(2) }] : [],
    liveLeaders: [{ brokerId: 1, hostName: 'broker-1', port: 9092 }],
  };
};

const response = { errorCode: 0, partitionErrors: [{ topicName: 'orders', partitionIndex: 0, errorCode: 0 }, { topicName: 'audit', partitionIndex: 0, errorCode: 56 }] };

describe('LeaderAndIsr', () => {
  it.each([...LeaderAndIsr.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = LeaderAndIsr.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('encodes every version from either shape, grouping or flattening as the version needs', () => {
    const grouped = request(2);
    const flat = { ...grouped, ungroupedPartitionStates: leaderAndIsrPartitionStates(grouped), topicStates: [] };
    for (const v of [0, 1, 2]) {
      const codec = LeaderAndIsr.versions.get(v)!;
      expect(roundTrip(codec, 'Request', grouped).bytes).toEqual(roundTrip(codec, 'Request', flat).bytes);
    }
    const decoded = roundTrip(LeaderAndIsr.versions.get(0)!, 'Request', grouped).decoded;
    expect(leaderAndIsrPartitionStates(decoded).map((p) => `${p.topicName}-${p.partitionIndex}`)).toEqual(['orders-0', 'orders-1', 'audit-0']);
  });

  it('v4 (flexible) lays out request and response as Kafka 2.4 LeaderAndIsr{Request,Response}.json says', () => {
    const v4 = LeaderAndIsr.versions.get(4)!;
    const req: LeaderAndIsrRequest = {
      controllerId: 1,
      controllerEpoch: 2,
      brokerEpoch: 3,
      ungroupedPartitionStates: [],
      topicStates: [
        {
          topicName: 't',
          partitionStates: [
            { topicName: 't', partitionIndex: 0, controllerEpoch: 2, leader: 1, leaderEpoch: 5, isr: [1], zkVersion: 7, replicas: [1, 2], addingReplicas: [2], removingReplicas: [], isNew: false },
          ],
        },
      ],
      liveLeaders: [{ brokerId: 1, hostName: 'h', port: 9092 }],
    };
    const bytes = encodeBody(v4, 'Request', req);
    expect(bytes.toString('hex')).toBe(
      '00000001' + '00000002' + '0000000000000003' + // controller_id, controller_epoch, broker_epoch
        '02' + '0274' + '02' + // topic_states [1]: "t", partition_states [1]
        '00000000' + '00000002' + '00000001' + '00000005' + // partition_index, controller_epoch, leader, leader_epoch
        '0200000001' + '00000007' + '030000000100000002' + // isr [1], zk_version 7, replicas [1, 2]
        '0200000002' + '01' + '00' + '00' + // adding_replicas [2], removing_replicas [], is_new false, partition tags
        '00' + // topic tags
        '02' + '00000001' + '0268' + '00002384' + '00' + // live_leaders [1]: broker 1, "h", 9092, tags
        '00', // body tags
    );
    expect(decodeBody(v4, 'Request', bytes).value).toEqual(req);
    const res = { errorCode: 0, partitionErrors: [{ topicName: 't', partitionIndex: 0, errorCode: 0 }] };
    expect(encodeBody(v4, 'Response', res).toString('hex')).toBe('0000' + '02' + '0274' + '00000000' + '0000' + '00' + '00');
  });

  it('v3+ carry adding_replicas and removing_replicas between replicas and is_new', () => {
    const flat = (v: number) => roundTrip(LeaderAndIsr.versions.get(v)!, 'Request', request(3)).bytes.length;
    // Each partition gains two i32 arrays: 4 bytes each when empty, 8 with one entry (orders-1 has one in each).
    expect(flat(3) - flat(2)).toBe(2 * (4 + 4) + (8 + 8));
  });
});
