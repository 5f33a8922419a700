/** DescribeGroups (key 15): field names from Kafka's DescribeGroupsRequest/Response.json. */
export interface DescribeGroupsRequest {
  groups: string[];
  /** v3+ (default false). */
  includeAuthorizedOperations: boolean;
}

export interface DescribedGroupMember {
  memberId: string;
  /** v4+. */
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  memberMetadata: Buffer;
  memberAssignment: Buffer;
}

export interface DescribedGroup {
  errorCode: number;
  groupId: string;
  /** Empty, PreparingRebalance, CompletingRebalance, Stable, Dead. */
  groupState: string;
  protocolType: string;
  /** The selected protocol (the assignor name for consumer groups). */
  protocolData: string;
  members: DescribedGroupMember[];
  /** v3+ (default -2147483648: not requested). */
  authorizedOperations: number;
}

export interface DescribeGroupsResponse {
  /** v1+ (default 0). */
  throttleTimeMs: number;
  groups: DescribedGroup[];
}
