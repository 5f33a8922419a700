import type { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** IncrementalAlterConfigs (KIP-339): SET/DELETE/APPEND/SUBTRACT on each resource's current overrides. */
export function incrementalAlterConfigsHandler(s: BrokerServices): ApiHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> {
  return async (req) => ({ throttleTimeMs: 0, responses: await s.configAdmin.incrementalAlterConfigs(req.resources, req.validateOnly) });
}
