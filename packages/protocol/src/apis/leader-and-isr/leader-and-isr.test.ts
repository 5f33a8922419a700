import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
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
});
