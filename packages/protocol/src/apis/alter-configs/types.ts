/** AlterConfigs (key 33): field names from Kafka's AlterConfigsRequest/Response.json (2.8). */
export interface AlterableConfig {
  name: string;
  value: string | null;
}

export interface AlterConfigsResource {
  /** ConfigResourceType: 2 topic, 4 broker. */
  resourceType: number;
  resourceName: string;
  /** The entity's whole new override set. */
  configs: AlterableConfig[];
}

export interface AlterConfigsRequest {
  resources: AlterConfigsResource[];
  validateOnly: boolean;
}

export interface AlterConfigsResourceResponse {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

export interface AlterConfigsResponse {
  throttleTimeMs: number;
  responses: AlterConfigsResourceResponse[];
}
