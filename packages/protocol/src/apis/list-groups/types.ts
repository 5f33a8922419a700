/** ListGroups (key 16): field names from Kafka's ListGroupsRequest/Response.json (v0-2 have an empty request). */
export type ListGroupsRequest = Record<string, never>;

export interface ListedGroup {
  groupId: string;
  protocolType: string;
}

export interface ListGroupsResponse {
  /** v1+ (default 0). */
  throttleTimeMs: number;
  errorCode: number;
  groups: ListedGroup[];
}
