/** ListOffsets (key 2): field names from Kafka's ListOffsetRequest/Response.json. */
export interface ListOffsetsPartition {
  partitionIndex: number;
  /** v4+ (default -1). */
  currentLeaderEpoch?: number;
  /** -1 = latest, -2 = earliest, otherwise a timestamp in ms (v0: offsets of segments older than it). */
  timestamp: number;
  /** v0 only (default 1): how many offsets to return, newest first. */
  maxNumOffsets?: number;
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
  /** v0 only (default []): offsets in descending order (segment base offsets, the log end or high watermark). */
  oldStyleOffsets?: number[];
  /** v1+ (default -1). */
  timestamp: number;
  /** v1+ (default -1). */
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
