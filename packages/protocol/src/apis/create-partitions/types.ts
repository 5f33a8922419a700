/** CreatePartitions (key 37): field names from Kafka's CreatePartitionsRequest/Response.json. */
export interface CreatePartitionsAssignment {
  brokerIds: number[];
}

export interface CreatePartitionsTopic {
  name: string;
  /** The new total partition count. */
  count: number;
  /** Replicas of each new partition, or null to let the controller place them. */
  assignments: CreatePartitionsAssignment[] | null;
}

export interface CreatePartitionsRequest {
  topics: CreatePartitionsTopic[];
  timeoutMs: number;
  validateOnly: boolean;
}

export interface CreatePartitionsTopicResult {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface CreatePartitionsResponse {
  throttleTimeMs: number;
  results: CreatePartitionsTopicResult[];
}
