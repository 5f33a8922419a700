/**
 * A failed SASL exchange. `clientMessage` is what the client is told in SaslAuthenticate's
 * error_message: Kafka passes a SaslAuthenticationException's own message through, but replaces any
 * other SaslException's by a generic one so that nothing (such as whether a user exists) leaks.
 */
export class SaslError extends Error {
  readonly clientMessage: string | null;

  /** `visible`: the message may be shown to the client (Kafka's SaslAuthenticationException). */
  constructor(message: string, options: { visible?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SaslError';
    this.clientMessage = options.visible ? message : null;
  }
}

/** The message Kafka sends for a failure whose own message must stay on the broker. */
export function genericAuthenticationFailure(mechanism: string): string {
  return `Authentication failed during authentication due to invalid credentials with SASL mechanism ${mechanism}`;
}
