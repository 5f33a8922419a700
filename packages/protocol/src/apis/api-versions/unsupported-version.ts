import { ErrorCode } from '@gregor/common';
import { encodeResponseHeader, writeFrame } from '../../header.js';
import { v0 } from './v0.js';

/**
 * The answer to an ApiVersions request of a version the broker does not know (KIP-511, Kafka 2.4+):
 * response header v0 and a v0 body with UNSUPPORTED_VERSION listing only ApiVersions' own range,
 * so the client retries with a version it shares. The request body is never parsed.
 * librdkafka sends v3 first and falls back to v0 on this answer; closing the socket instead would
 * make it give up on ApiVersions.
 */
export function encodeApiVersionsUnsupportedVersion(correlationId: number, minVersion: number, maxVersion: number): Buffer[] {
  return writeFrame((w) => {
    encodeResponseHeader(w, correlationId, false);
    v0.encodeResponse(w, { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [{ apiKey: 18, minVersion, maxVersion }] });
  }, 32);
}
