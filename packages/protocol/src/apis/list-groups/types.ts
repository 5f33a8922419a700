/** ListGroups (key 16): field names from Kafka's ListGroupsRequest/Response.json (the request has no fields; v3 is just its tag section). */
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
