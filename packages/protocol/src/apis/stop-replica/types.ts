/** StopReplica (key 5, controller → broker): field names from Kafka's StopReplicaRequest/Response.json. */
export interface StopReplicaPartitionV0 {
  topicName: string;
  partitionIndex: number;
}

export interface StopReplicaTopicV1 {
  name: string;
  partitionIndexes: number[];
}

/** Fill either ungroupedPartitions or topics: both versions encode from either shape. */
export interface StopReplicaRequest {
  controllerId: number;
  controllerEpoch: number;
  /** v1+ (default -1). */
  brokerEpoch?: number;
  /** Delete the replicas' logs too (topic deletion, reassignment), not only stop them. */
  deletePartitions: boolean;
  /** v0 (default []). */
  ungroupedPartitions?: StopReplicaPartitionV0[];
  /** v1+ (default []). */
  topics?: StopReplicaTopicV1[];
}

export interface StopReplicaPartitionError {
  topicName: string;
  partitionIndex: number;
  errorCode: number;
}

export interface StopReplicaResponse {
  errorCode: number;
  partitionErrors: StopReplicaPartitionError[];
}
