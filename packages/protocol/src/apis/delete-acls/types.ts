import type { AclBindingFilterFields } from '../acl-fields.js';

/** DeleteAcls (key 31): field names from Kafka's DeleteAclsRequest/Response.json. */
export type DeleteAclsFilter = AclBindingFilterFields;

export interface DeleteAclsRequest {
  filters: DeleteAclsFilter[];
}

export interface DeleteAclsMatchingAcl {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
  /** v1+ (v0: LITERAL). */
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface DeleteAclsFilterResult {
  errorCode: number;
  errorMessage: string | null;
  matchingAcls: DeleteAclsMatchingAcl[];
}

export interface DeleteAclsResponse {
  throttleTimeMs: number;
  /** One per filter, in request order. */
  filterResults: DeleteAclsFilterResult[];
}
