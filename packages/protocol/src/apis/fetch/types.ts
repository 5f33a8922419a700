/** Fetch (key 1): field names from Kafka's FetchRequest/Response.json. */
export interface FetchPartition {
  partition: number;
  /** v9+ (default -1). */
  currentLeaderEpoch?: number;
  fetchOffset: number;
  /** v5+ (default -1); only followers send a real value. */
  logStartOffset?: number;
  partitionMaxBytes: number;
}

export interface FetchTopic {
  topic: string;
  partitions: FetchPartition[];
}

export interface ForgottenTopic {
  topic: string;
  partitions: number[];
}

export interface FetchRequest {
  /** -1 for consumers, the broker id for followers. */
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  /** v3+ (decoded as 0x7fffffff before, as Kafka does). */
  maxBytes: number;
  /** v4+ (default 0): 0 = READ_UNCOMMITTED, 1 = READ_COMMITTED. */
  isolationLevel: number;
  /** v7+ (default 0). */
  sessionId?: number;
  /** v7+ (default -1). */
  sessionEpoch?: number;
  topics: FetchTopic[];
  /** v7+ (default []). */
  forgottenTopicsData?: ForgottenTopic[];
  /** v11+ (default ""). */
  rackId?: string;
}

export interface AbortedTransaction {
  producerId: number;
  firstOffset: number;
}

export interface FetchablePartitionResponse {
  partition: number;
  errorCode: number;
  highWatermark: number;
  /** v4+ (decoded as -1 before). */
  lastStableOffset: number;
  /** v5+ (default -1). */
  logStartOffset?: number;
  /** v4+ (decoded as null before). */
  abortedTransactions: AbortedTransaction[] | null;
  /** v11+ (default -1). */
  preferredReadReplica?: number;
  /** Record batches as read from the log, or for v0-3 a MessageSet of magic 0/1 (the last entry may be partial). */
  recordSet: Buffer | null;
}

export interface FetchableTopicResponse {
  topic: string;
  partitionResponses: FetchablePartitionResponse[];
}

export interface FetchResponse {
  /** v1+. */
  throttleTimeMs: number;
  /** v7+ (default 0). */
  errorCode?: number;
  /** v7+ (default 0). */
  sessionId?: number;
  responses: FetchableTopicResponse[];
}
