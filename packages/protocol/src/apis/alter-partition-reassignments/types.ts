/** AlterPartitionReassignments (key 45, KIP-455): field names from Kafka's AlterPartitionReassignmentsRequest/Response.json. */
export interface ReassignablePartition {
  partitionIndex: number;
  /** The target replicas, or null to cancel the partition's reassignment in progress. */
  replicas: number[] | null;
}

export interface ReassignableTopic {
  name: string;
  partitions: ReassignablePartition[];
}

export interface AlterPartitionReassignmentsRequest {
  /** Kafka's default 60000. */
  timeoutMs: number;
  topics: ReassignableTopic[];
}

export interface ReassignablePartitionResponse {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface ReassignableTopicResponse {
  name: string;
  partitions: ReassignablePartitionResponse[];
}

export interface AlterPartitionReassignmentsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  responses: ReassignableTopicResponse[];
}
