/** CreateAcls (key 30): field names from Kafka's CreateAclsRequest/Response.json. */
export interface AclCreation {
  resourceType: number;
  resourceName: string;
  /** v1+ (v0: LITERAL). */
  resourcePatternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface CreateAclsRequest {
  creations: AclCreation[];
}

export interface AclCreationResult {
  errorCode: number;
  errorMessage: string | null;
}

export interface CreateAclsResponse {
  throttleTimeMs: number;
  /** One per creation, in request order. */
  results: AclCreationResult[];
}
