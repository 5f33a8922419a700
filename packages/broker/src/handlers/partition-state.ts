import type { PartitionState } from '../metadata/metadata-cache.js';

/** The fields LeaderAndIsr and UpdateMetadata share for one partition. */
export interface WirePartitionState {
  topicName: string;
  partitionIndex: number;
  controllerEpoch: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  zkVersion: number;
  replicas: number[];
  offlineReplicas?: number[];
}

export function toPartitionState(p: WirePartitionState, offlineReplicas: number[] = p.offlineReplicas ?? []): PartitionState {
  return {
    topic: p.topicName,
    partition: p.partitionIndex,
    controllerEpoch: p.controllerEpoch,
    leader: p.leader,
    leaderEpoch: p.leaderEpoch,
    isr: p.isr,
    zkVersion: p.zkVersion,
    replicas: p.replicas,
    offlineReplicas,
  };
}
