import { ErrorCode } from '@gregor/common';
import type { ApiVersionsRequest, ApiVersionsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** ApiVersions: the versions of every API this broker serves, from the same table that routes requests. */
export function apiVersionsHandler(s: BrokerServices): ApiHandler<ApiVersionsRequest, ApiVersionsResponse> {
  return () => ({ errorCode: ErrorCode.NONE, apiKeys: s.supportedApis(), throttleTimeMs: 0 });
}
