import { ErrorCode, GregorError } from '@gregor/common';

/** The socket failed or closed: every request in flight on it gets this (retriable) error. */
export class NetworkError extends GregorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.NETWORK_EXCEPTION, message, options);
  }
}

/** Client and broker share no version of an API (not retriable: retrying cannot help). */
export class NoCommonVersionError extends GregorError {
  constructor(message: string) {
    super(ErrorCode.UNSUPPORTED_VERSION, message);
  }
}

/** The client was closed: nothing more can be sent through it (not retriable). */
export class ClientClosedError extends Error {
  constructor(message = 'the client is closed') {
    super(message);
    this.name = 'ClientClosedError';
  }
}

/**
 * SASL authentication failed (the broker's SaslAuthenticate error message is kept), or the TLS
 * handshake did (an untrusted or wrongly named certificate). Not retriable: the same credentials
 * fail again.
 */
export class AuthenticationError extends GregorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.SASL_AUTHENTICATION_FAILED, message, options);
    this.name = 'AuthenticationError';
  }
}
