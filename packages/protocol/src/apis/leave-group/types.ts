/** LeaveGroup (key 13): field names from Kafka's LeaveGroupRequest/Response.json. */
export interface MemberIdentity {
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveGroupRequest {
  groupId: string;
  /** v0-2: the one member leaving ("" in v3+). */
  memberId: string;
  /** v3+: the members leaving (v0-2 decode as one entry for memberId). */
  members: MemberIdentity[];
}

export interface MemberResponse extends MemberIdentity {
  errorCode: number;
}

export interface LeaveGroupResponse {
  /** v1+ (default 0). */
  throttleTimeMs: number;
  errorCode: number;
  /** v3+. */
  members: MemberResponse[];
}
