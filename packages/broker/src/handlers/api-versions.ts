import { ErrorCode } from '@gregor/common';
import type { ApiVersionsRequest, ApiVersionsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** Kafka's ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN (KIP-511), matched against the whole string. */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * ApiVersions: the versions of every API this broker serves, from the same table that routes requests.
 * A v3 request whose client software name or version breaks KIP-511's pattern gets INVALID_REQUEST
 * and no api keys, in the v3 format (Kafka's ApiVersionsRequest.isValid / getErrorResponse).
 */
export function apiVersionsHandler(s: BrokerServices): ApiHandler<ApiVersionsRequest, ApiVersionsResponse> {
  return (req, ctx) => {
    if (ctx.apiVersion >= 3 && !(validSoftwareField(req.clientSoftwareName) && validSoftwareField(req.clientSoftwareVersion))) {
      return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
    }
    return { errorCode: ErrorCode.NONE, apiKeys: s.supportedApis(), throttleTimeMs: 0 };
  };
}

export function validSoftwareField(value: string | undefined): boolean {
  return value !== undefined && SOFTWARE_NAME_VERSION.test(value);
}
