import type { PartitionStateWithReplicas } from '@gregor/common';
import type { CachedPartitionState } from '../metadata/metadata-cache.js';

/** The fields LeaderAndIsr and UpdateMetadata share for one partition. */
export interface WirePartitionState extends PartitionStateWithReplicas {
  topicName: string;
  partitionIndex: number;
  offlineReplicas?: number[];
}

export function toPartitionState(p: WirePartitionState, offlineReplicas: number[] = p.offlineReplicas ?? []): CachedPartitionState {
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
