/** OffsetCommit (key 8): field names from Kafka's OffsetCommitRequest/Response.json. */
export interface OffsetCommitRequestPartition {
  partitionIndex: number;
  committedOffset: number;
  /** v6+ (default -1). */
  committedLeaderEpoch: number;
  /** v1 only (default -1). */
  commitTimestamp: number;
  committedMetadata: string | null;
}

export interface OffsetCommitRequestTopic {
  name: string;
  partitions: OffsetCommitRequestPartition[];
}

export interface OffsetCommitRequest {
  groupId: string;
  /** v1+ (default -1: a commit outside any generation). */
  generationId: number;
  /** v1+ (default ""). */
  memberId: string;
  /** v7+. */
  groupInstanceId: string | null;
  /** v2-4 (default -1: the broker's offsets.retention.minutes). */
  retentionTimeMs: number;
  topics: OffsetCommitRequestTopic[];
}

export interface OffsetCommitResponsePartition {
  partitionIndex: number;
  errorCode: number;
}

export interface OffsetCommitResponseTopic {
  name: string;
  partitions: OffsetCommitResponsePartition[];
}

export interface OffsetCommitResponse {
  /** v3+ (default 0). */
  throttleTimeMs: number;
  topics: OffsetCommitResponseTopic[];
}
