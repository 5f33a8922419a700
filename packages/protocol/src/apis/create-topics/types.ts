/** CreateTopics (key 19): field names from Kafka's CreateTopicsRequest/Response.json. */
export interface CreatableReplicaAssignment {
  partitionIndex: number;
  brokerIds: number[];
}

export interface CreateableTopicConfig {
  name: string;
  value: string | null;
}

export interface CreatableTopic {
  name: string;
  /** -1 with explicit assignments (or, v4+, to use the broker default). */
  numPartitions: number;
  /** -1 with explicit assignments (or, v4+, to use the broker default). */
  replicationFactor: number;
  assignments: CreatableReplicaAssignment[];
  configs: CreateableTopicConfig[];
}

export interface CreateTopicsRequest {
  topics: CreatableTopic[];
  timeoutMs: number;
  /** v1+ (default false). */
  validateOnly?: boolean;
}

export interface CreatableTopicResult {
  name: string;
  errorCode: number;
  /** v1+ (default null). */
  errorMessage?: string | null;
}

export interface CreateTopicsResponse {
  /** v2+ (default 0). */
  throttleTimeMs?: number;
  topics: CreatableTopicResult[];
}
