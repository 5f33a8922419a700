import type { AclBindingFilterFields } from '../acl-fields.js';

/** DescribeAcls (key 29): field names from Kafka's DescribeAclsRequest/Response.json. */
export type DescribeAclsRequest = AclBindingFilterFields;

export interface AclDescription {
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface DescribeAclsResource {
  resourceType: number;
  resourceName: string;
  /** v1+ (v0: LITERAL). */
  patternType: number;
  acls: AclDescription[];
}

export interface DescribeAclsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  resources: DescribeAclsResource[];
}
