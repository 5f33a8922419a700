/** DeleteGroups (key 42): field names from Kafka's DeleteGroupsRequest/Response.json. */
export interface DeleteGroupsRequest {
  groupsNames: string[];
}

export interface DeletableGroupResult {
  groupId: string;
  errorCode: number;
}

export interface DeleteGroupsResponse {
  throttleTimeMs: number;
  results: DeletableGroupResult[];
}
