/** ElectLeaders (key 43): field names from Kafka's ElectLeadersRequest/Response.json. */

/** Kafka's ElectionType: the preferred replica, or any live replica when no in-sync one is left (KIP-460). */
export const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const;

export interface ElectLeadersTopicPartitions {
  topic: string;
  partitionId: number[];
}

export interface ElectLeadersRequest {
  /** v1+ (v0 always elects the preferred replica). */
  electionType?: number;
  /** null = every partition. */
  topicPartitions: ElectLeadersTopicPartitions[] | null;
  /** Time to wait for the election to complete (Kafka's default 60000). */
  timeoutMs: number;
}

export interface ElectLeadersPartitionResult {
  partitionId: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface ElectLeadersReplicaElectionResult {
  topic: string;
  partitionResult: ElectLeadersPartitionResult[];
}

export interface ElectLeadersResponse {
  throttleTimeMs: number;
  /** v1+ (default 0). */
  errorCode?: number;
  replicaElectionResults: ElectLeadersReplicaElectionResult[];
}
