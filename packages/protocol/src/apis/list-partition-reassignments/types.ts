/** ListPartitionReassignments (key 46, KIP-455): field names from Kafka's ListPartitionReassignmentsRequest/Response.json. */
export interface ListPartitionReassignmentsTopics {
  name: string;
  partitionIndexes: number[];
}

export interface ListPartitionReassignmentsRequest {
  /** Kafka's default 60000. */
  timeoutMs: number;
  /** null = every reassignment in progress. */
  topics: ListPartitionReassignmentsTopics[] | null;
}

export interface OngoingPartitionReassignment {
  partitionIndex: number;
  /** The current replica set (target then original replicas). */
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface OngoingTopicReassignment {
  name: string;
  partitions: OngoingPartitionReassignment[];
}

export interface ListPartitionReassignmentsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  topics: OngoingTopicReassignment[];
}
