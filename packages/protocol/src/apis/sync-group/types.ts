/** SyncGroup (key 14): field names from Kafka's SyncGroupRequest/Response.json. */
export interface SyncGroupRequestAssignment {
  memberId: string;
  assignment: Buffer;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  /** v3+; null otherwise. */
  groupInstanceId: string | null;
  /** Only the leader sends assignments. */
  assignments: SyncGroupRequestAssignment[];
}

export interface SyncGroupResponse {
  /** v1+ (default 0). */
  throttleTimeMs: number;
  errorCode: number;
  assignment: Buffer;
}
