/** Produce (key 0): field names from Kafka's ProduceRequest/Response.json. */
export interface PartitionProduceData {
  index: number;
  /** RecordBatch v2 bytes, a view into the request frame (never re-encoded). */
  records: Buffer | null;
}

export interface TopicProduceData {
  name: string;
  partitionData: PartitionProduceData[];
}

export interface ProduceRequest {
  transactionalId: string | null;
  /** 0 = no response, 1 = leader only, -1 = full ISR. */
  acks: number;
  timeoutMs: number;
  topicData: TopicProduceData[];
}

/** A record that made the whole batch fail (KIP-467). */
export interface BatchIndexAndErrorMessage {
  /** The record's position in its batch. */
  batchIndex: number;
  batchIndexErrorMessage: string | null;
}

export interface PartitionProduceResponse {
  index: number;
  errorCode: number;
  baseOffset: number;
  /** -1 unless the topic uses LogAppendTime. */
  logAppendTimeMs: number;
  /** v5+ (default -1). */
  logStartOffset?: number;
  /** v8+ (default []): the records that caused the batch to be dropped. */
  recordErrors?: BatchIndexAndErrorMessage[];
  /** v8+ (default null): the common cause of those records' failure. */
  errorMessage?: string | null;
}

export interface TopicProduceResponse {
  name: string;
  partitionResponses: PartitionProduceResponse[];
}

export interface ProduceResponse {
  responses: TopicProduceResponse[];
  /** Last in the body, unlike most responses. */
  throttleTimeMs: number;
}
