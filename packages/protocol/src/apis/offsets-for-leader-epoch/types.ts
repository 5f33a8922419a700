/**
 * OffsetsForLeaderEpoch (key 23; Kafka's JSON calls it OffsetForLeaderEpoch): field names from
 * OffsetForLeaderEpochRequest/Response.json. Followers use it to find where to truncate.
 */
export interface OffsetForLeaderPartition {
  partition: number;
  /** v2+ (default -1): the sender's view of the leader epoch, for fencing. */
  currentLeaderEpoch?: number;
  /** The epoch whose end offset is asked for. */
  leaderEpoch: number;
}

export interface OffsetForLeaderTopic {
  topic: string;
  partitions: OffsetForLeaderPartition[];
}

export interface OffsetsForLeaderEpochRequest {
  /** v3+ (default -2: a debugging consumer; followers send their broker id, consumers -1). */
  replicaId?: number;
  topics: OffsetForLeaderTopic[];
}

export interface EpochEndOffset {
  errorCode: number;
  partition: number;
  /** v1+ (default -1). */
  leaderEpoch?: number;
  endOffset: number;
}

export interface OffsetForLeaderTopicResult {
  topic: string;
  partitions: EpochEndOffset[];
}

export interface OffsetsForLeaderEpochResponse {
  /** v2+ (default 0). */
  throttleTimeMs?: number;
  topics: OffsetForLeaderTopicResult[];
}
