/** OffsetDelete (key 47): field names from Kafka's OffsetDeleteRequest/Response.json. */
export interface OffsetDeleteRequestTopic {
  name: string;
  partitions: { partitionIndex: number }[];
}

export interface OffsetDeleteRequest {
  groupId: string;
  topics: OffsetDeleteRequestTopic[];
}

export interface OffsetDeleteResponsePartition {
  partitionIndex: number;
  errorCode: number;
}

export interface OffsetDeleteResponseTopic {
  name: string;
  partitions: OffsetDeleteResponsePartition[];
}

export interface OffsetDeleteResponse {
  /** Group-level error; the topics are then empty. */
  errorCode: number;
  throttleTimeMs: number;
  topics: OffsetDeleteResponseTopic[];
}
