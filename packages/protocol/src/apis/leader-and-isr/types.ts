import type { PartitionStateWithReplicas } from '@gregor/common';

/** LeaderAndIsr (key 4, controller → broker): field names from Kafka's LeaderAndIsrRequest/Response.json. */
export interface LeaderAndIsrPartitionState extends PartitionStateWithReplicas {
  /**
   * On the wire only in v0-1 (flat list). Decoding v2+ fills it from the enclosing topic state, as
   * Kafka's LeaderAndIsrRequest.partitionStates() does.
   */
  topicName?: string;
  partitionIndex: number;
  /** v3+ (default []): replicas a reassignment is adding (KIP-455). */
  addingReplicas?: number[];
  /** v3+ (default []): replicas a reassignment is removing (KIP-455). */
  removingReplicas?: number[];
  /** v1+ (default false): the replica is being created (a new topic or partition). */
  isNew?: boolean;
}

export interface LeaderAndIsrTopicState {
  topicName: string;
  partitionStates: LeaderAndIsrPartitionState[];
}

export interface LeaderAndIsrLiveLeader {
  brokerId: number;
  hostName: string;
  port: number;
}

/**
 * Fill either ungroupedPartitionStates or topicStates: every version encodes from either shape.
 * Decoding fills the one the version carries and leaves the other empty.
 */
export interface LeaderAndIsrRequest {
  controllerId: number;
  controllerEpoch: number;
  /** v2+ (default -1). */
  brokerEpoch?: number;
  /** v0-1 (default []). */
  ungroupedPartitionStates?: LeaderAndIsrPartitionState[];
  /** v2+ (default []). */
  topicStates?: LeaderAndIsrTopicState[];
  liveLeaders: LeaderAndIsrLiveLeader[];
}

export interface LeaderAndIsrPartitionError {
  topicName: string;
  partitionIndex: number;
  errorCode: number;
}

export interface LeaderAndIsrResponse {
  errorCode: number;
  partitionErrors: LeaderAndIsrPartitionError[];
}
