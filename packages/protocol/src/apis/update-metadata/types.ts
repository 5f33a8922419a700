import type { PartitionStateWithReplicas } from '@gregor/common';

/** UpdateMetadata (key 6, controller → broker): field names from Kafka's UpdateMetadataRequest/Response.json. */
export interface UpdateMetadataPartitionState extends PartitionStateWithReplicas {
  /** On the wire only in v0-4 (flat list); decoding v5+ fills it from the enclosing topic state. */
  topicName?: string;
  partitionIndex: number;
  /** v4+ (default []). */
  offlineReplicas?: number[];
}

export interface UpdateMetadataTopicState {
  topicName: string;
  partitionStates: UpdateMetadataPartitionState[];
}

export interface UpdateMetadataEndpoint {
  port: number;
  host: string;
  /** v3+ (default ""). */
  listener?: string;
  /** 0 = PLAINTEXT. */
  securityProtocol: number;
}

export interface UpdateMetadataBroker {
  id: number;
  /** v0 only (default ""); encoding v0 falls back to the first endpoint. */
  v0Host?: string;
  /** v0 only (default 0). */
  v0Port?: number;
  /** v1+ (default []); encoding v1+ without endpoints uses v0Host/v0Port as a PLAINTEXT endpoint. */
  endpoints?: UpdateMetadataEndpoint[];
  /** v2+ (default null). */
  rack?: string | null;
}

/** Fill either ungroupedPartitionStates or topicStates: every version encodes from either shape. */
export interface UpdateMetadataRequest {
  controllerId: number;
  controllerEpoch: number;
  /** v5+ (default -1). */
  brokerEpoch?: number;
  /** v0-4 (default []). */
  ungroupedPartitionStates?: UpdateMetadataPartitionState[];
  /** v5+ (default []). */
  topicStates?: UpdateMetadataTopicState[];
  liveBrokers: UpdateMetadataBroker[];
}

export interface UpdateMetadataResponse {
  errorCode: number;
}
