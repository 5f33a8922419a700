/** ControlledShutdown (key 7): field names from Kafka's ControlledShutdownRequest/Response.json. */
export interface ControlledShutdownRequest {
  brokerId: number;
  /** v2+ (default -1). */
  brokerEpoch?: number;
}

export interface RemainingPartition {
  topicName: string;
  partitionIndex: number;
}

export interface ControlledShutdownResponse {
  errorCode: number;
  /** Partitions still led by the broker; it retries until this is empty. */
  remainingPartitions: RemainingPartition[];
}
