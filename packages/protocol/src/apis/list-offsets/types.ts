/** ListOffsets (key 2): field names from Kafka's ListOffsetsRequest/Response.json (v0's max_num_offsets and old_style_offsets are out of range). */
export interface ListOffsetsPartition {
  partitionIndex: number;
  /** v4+ (default -1). */
  currentLeaderEpoch?: number;
  /** -1 = latest, -2 = earliest, otherwise a timestamp in ms. */
  timestamp: number;
}

export interface ListOffsetsTopic {
  name: string;
  partitions: ListOffsetsPartition[];
}

export interface ListOffsetsRequest {
  replicaId: number;
  /** v2+ (default 0). */
  isolationLevel?: number;
  topics: ListOffsetsTopic[];
}

export interface ListOffsetsPartitionResponse {
  partitionIndex: number;
  errorCode: number;
  timestamp: number;
  offset: number;
  /** v4+ (default -1). */
  leaderEpoch?: number;
}

export interface ListOffsetsTopicResponse {
  name: string;
  partitions: ListOffsetsPartitionResponse[];
}

export interface ListOffsetsResponse {
  /** v2+ (default 0). */
  throttleTimeMs?: number;
  topics: ListOffsetsTopicResponse[];
}

/** Special timestamps of a ListOffsets request. */
export const ListOffsetsTimestamp = { latest: -1, earliest: -2 } as const;
