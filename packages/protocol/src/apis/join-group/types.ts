/** JoinGroup (key 11): field names from Kafka's JoinGroupRequest/Response.json. */
export interface JoinGroupRequestProtocol {
  name: string;
  /** Opaque to the broker (the Java consumer's Subscription for protocolType "consumer"). */
  metadata: Buffer;
}

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  /** v1+ (v0: the session timeout). */
  rebalanceTimeoutMs: number;
  memberId: string;
  /** v5+ (static membership); null otherwise. */
  groupInstanceId: string | null;
  protocolType: string;
  protocols: JoinGroupRequestProtocol[];
}

export interface JoinGroupResponseMember {
  memberId: string;
  /** v5+. */
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface JoinGroupResponse {
  /** v2+ (default 0). */
  throttleTimeMs: number;
  errorCode: number;
  generationId: number;
  protocolName: string;
  leader: string;
  memberId: string;
  /** Only the leader gets the members. */
  members: JoinGroupResponseMember[];
}
