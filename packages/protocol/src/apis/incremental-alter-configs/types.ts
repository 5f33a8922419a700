/** IncrementalAlterConfigs (key 44): field names from Kafka's IncrementalAlterConfigsRequest/Response.json (2.8). */
import type { AlterConfigsResourceResponse } from '../alter-configs/types.js';

export interface IncrementalAlterableConfig {
  name: string;
  /** AlterConfigOpType: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT. */
  configOperation: number;
  value: string | null;
}

export interface IncrementalAlterConfigsResource {
  resourceType: number;
  resourceName: string;
  configs: IncrementalAlterableConfig[];
}

export interface IncrementalAlterConfigsRequest {
  resources: IncrementalAlterConfigsResource[];
  validateOnly: boolean;
}

export interface IncrementalAlterConfigsResponse {
  throttleTimeMs: number;
  responses: AlterConfigsResourceResponse[];
}
