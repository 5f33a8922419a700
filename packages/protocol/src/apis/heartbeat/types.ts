/** Heartbeat (key 12): field names from Kafka's HeartbeatRequest/Response.json. */
export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  /** v3+; null otherwise. */
  groupInstanceId: string | null;
}

export interface HeartbeatResponse {
  /** v1+ (default 0). */
  throttleTimeMs: number;
  errorCode: number;
}
