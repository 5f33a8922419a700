/** OffsetFetch (key 9): field names from Kafka's OffsetFetchRequest/Response.json. */
export interface OffsetFetchRequestTopic {
  name: string;
  partitionIndexes: number[];
}

export interface OffsetFetchRequest {
  groupId: string;
  /** v2+: null = every partition the group has committed. */
  topics: OffsetFetchRequestTopic[] | null;
}

export interface OffsetFetchResponsePartition {
  partitionIndex: number;
  /** -1 when nothing is committed. */
  committedOffset: number;
  /** v5+ (default -1). */
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponseTopic {
  name: string;
  partitions: OffsetFetchResponsePartition[];
}

export interface OffsetFetchResponse {
  /** v3+ (default 0). */
  throttleTimeMs: number;
  topics: OffsetFetchResponseTopic[];
  /** v2+: a group-level error (default 0). */
  errorCode: number;
}
