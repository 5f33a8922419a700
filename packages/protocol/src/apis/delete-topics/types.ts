/** DeleteTopics (key 20): field names from Kafka's DeleteTopicsRequest/Response.json. */
export interface DeleteTopicsRequest {
  topicNames: string[];
  timeoutMs: number;
}

export interface DeletableTopicResult {
  name: string;
  errorCode: number;
}

export interface DeleteTopicsResponse {
  /** v1+ (default 0). */
  throttleTimeMs?: number;
  responses: DeletableTopicResult[];
}
