/** Metadata (key 3): field names from Kafka's MetadataRequest/Response.json. */
export interface MetadataRequestTopic {
  name: string;
}

export interface MetadataRequest {
  /**
   * null = all topics, [] = none (v1+). Version 0 has no null: its empty array means all topics,
   * so v0 decodes [] as null and encodes null as [].
   */
  topics: MetadataRequestTopic[] | null;
  /** v4+ (default true). */
  allowAutoTopicCreation?: boolean;
  /** v8+ (default false). */
  includeClusterAuthorizedOperations?: boolean;
  /** v8+ (default false). */
  includeTopicAuthorizedOperations?: boolean;
}

export interface MetadataResponseBroker {
  nodeId: number;
  host: string;
  port: number;
  /** v1+ (default null). */
  rack?: string | null;
}

export interface MetadataResponsePartition {
  errorCode: number;
  partitionIndex: number;
  leaderId: number;
  /** v7+ (default -1). */
  leaderEpoch?: number;
  replicaNodes: number[];
  isrNodes: number[];
  /** v5+ (default []). */
  offlineReplicas?: number[];
}

export interface MetadataResponseTopic {
  errorCode: number;
  name: string;
  /** v1+ (default false). */
  isInternal?: boolean;
  partitions: MetadataResponsePartition[];
  /** v8+ (default -2147483648). */
  topicAuthorizedOperations?: number;
}

export interface MetadataResponse {
  /** v3+ (default 0). */
  throttleTimeMs?: number;
  brokers: MetadataResponseBroker[];
  /** v2+ (default null). */
  clusterId?: string | null;
  /** v1+ (default -1). */
  controllerId?: number;
  topics: MetadataResponseTopic[];
  /** v8+ (default -2147483648). */
  clusterAuthorizedOperations?: number;
}
