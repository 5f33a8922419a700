import { ErrorCode } from '@gregor/common';
import type { SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse } from '@gregor/protocol';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * SaslHandshake and SaslAuthenticate once the SASL phase is over (the socket server's authenticator
 * handles them before), or on a listener without SASL: ILLEGAL_SASL_STATE, as Kafka's KafkaApis.
 */
export function saslHandshakeHandler(): ApiHandler<SaslHandshakeRequest, SaslHandshakeResponse> {
  return () => ({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
}

export function saslAuthenticateHandler(): ApiHandler<SaslAuthenticateRequest, SaslAuthenticateResponse> {
  return () => ({
    errorCode: ErrorCode.ILLEGAL_SASL_STATE,
    errorMessage: 'SaslAuthenticate request received after successful authentication',
    authBytes: Buffer.alloc(0),
    sessionLifetimeMs: 0,
  });
}
