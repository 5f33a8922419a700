/** InitProducerId (key 22): field names from Kafka's InitProducerIdRequest/Response.json. */
export interface InitProducerIdRequest {
  /** null for an idempotent producer without transactions; "" is invalid. */
  transactionalId: string | null;
  transactionTimeoutMs: number;
}

export interface InitProducerIdResponse {
  throttleTimeMs: number;
  errorCode: number;
  /** -1 on error. */
  producerId: number;
  /** -1 on error. */
  producerEpoch: number;
}
