/** DeleteRecords (key 21): field names from Kafka's DeleteRecordsRequest/Response.json. */
export interface DeleteRecordsPartition {
  partitionIndex: number;
  /** The new log start offset; -1 = the high watermark. */
  offset: number;
}

export interface DeleteRecordsTopic {
  name: string;
  partitions: DeleteRecordsPartition[];
}

export interface DeleteRecordsRequest {
  topics: DeleteRecordsTopic[];
  timeoutMs: number;
}

export interface DeleteRecordsPartitionResult {
  partitionIndex: number;
  /** The partition's low watermark (smallest log start offset of its live replicas); -1 on error. */
  lowWatermark: number;
  errorCode: number;
}

export interface DeleteRecordsTopicResult {
  name: string;
  partitions: DeleteRecordsPartitionResult[];
}

export interface DeleteRecordsResponse {
  throttleTimeMs: number;
  topics: DeleteRecordsTopicResult[];
}
