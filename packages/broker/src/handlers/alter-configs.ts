import type { AlterConfigsRequest, AlterConfigsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** AlterConfigs: replaces each resource's whole override set in ZooKeeper (any broker; broker resources on that broker or ""). */
export function alterConfigsHandler(s: BrokerServices): ApiHandler<AlterConfigsRequest, AlterConfigsResponse> {
  return async (req) => ({ throttleTimeMs: 0, responses: await s.configAdmin.alterConfigs(req.resources, req.validateOnly) });
}
