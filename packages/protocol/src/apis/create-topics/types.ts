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

/** One effective topic setting echoed in a v5+ response (KIP-525). */
export interface CreatableTopicConfigs {
  name: string;
  /** null for a sensitive setting. */
  value: string | null;
  readOnly: boolean;
  /** DescribeConfigs' ConfigSource id: 1 topic, 4 static broker, 5 default (-1 unknown). */
  configSource: number;
  isSensitive: boolean;
}

export interface CreatableTopicResult {
  name: string;
  errorCode: number;
  /** v1+ (default null). */
  errorMessage?: string | null;
  /** v5+, tagged field 0 (default 0): why configs are missing, e.g. TOPIC_AUTHORIZATION_FAILED. */
  topicConfigErrorCode?: number;
  /** v5+ (default -1). */
  numPartitions?: number;
  /** v5+ (default -1). */
  replicationFactor?: number;
  /** v5+ (default []; nullable). */
  configs?: CreatableTopicConfigs[] | null;
}

export interface CreateTopicsResponse {
  /** v2+ (default 0). */
  throttleTimeMs?: number;
  topics: CreatableTopicResult[];
}
