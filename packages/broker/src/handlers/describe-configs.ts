import type { DescribeConfigsRequest, DescribeConfigsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** DescribeConfigs: topics (any broker) and brokers (this broker's id, or "" for the cluster-wide defaults). */
export function describeConfigsHandler(s: BrokerServices): ApiHandler<DescribeConfigsRequest, DescribeConfigsResponse> {
  return async (req) => ({ throttleTimeMs: 0, results: await s.configAdmin.describeConfigs(req) });
}
