import { ErrorCode, errorName } from '@gregor/common';
import { SaslAuthenticate, SaslError, SaslHandshake, ScramClient, plainClientToken, type ApiDefinition } from '@gregor/protocol';
import { AuthenticationError } from '../errors.js';
import type { SaslCredentials } from './client-security.js';

/** What the authenticator needs from a connection: one request at a version. */
export type RawSend = <Req, Res>(api: ApiDefinition<Req, Res>, version: number, request: Req) => Promise<Res>;

/**
 * The client half of Kafka's SASL exchange after ApiVersions: SaslHandshake v1 naming the mechanism,
 * then the mechanism's tokens in SaslAuthenticate requests (one for PLAIN, two for SCRAM, whose
 * server signature is checked). Any failure is an AuthenticationError with the broker's message.
 */
export async function saslAuthenticate(send: RawSend, versions: { handshake: number; authenticate: number }, sasl: SaslCredentials, address: string): Promise<void> {
  if (versions.handshake < 1) throw new AuthenticationError(`the broker ${address} only speaks SaslHandshake v0 (raw SASL tokens), which this client does not`);
  const hs = await send(SaslHandshake, versions.handshake, { mechanism: sasl.mechanism });
  if (hs.errorCode === ErrorCode.UNSUPPORTED_SASL_MECHANISM) {
    throw new AuthenticationError(`Client SASL mechanism '${sasl.mechanism}' not enabled in the server, enabled mechanisms are [${hs.mechanisms.join(', ')}]`);
  }
  if (hs.errorCode !== ErrorCode.NONE) throw new AuthenticationError(`SaslHandshake to ${address} failed with ${errorName(hs.errorCode)}`);
  const step = async (token: Buffer): Promise<Buffer> => {
    const r = await send(SaslAuthenticate, versions.authenticate, { authBytes: token });
    if (r.errorCode !== ErrorCode.NONE) throw new AuthenticationError(r.errorMessage ?? `SaslAuthenticate to ${address} failed with ${errorName(r.errorCode)}`);
    return r.authBytes;
  };
  try {
    if (sasl.mechanism === 'PLAIN') {
      await step(plainClientToken(sasl.username, sasl.password));
      return;
    }
    const scram = new ScramClient(sasl.mechanism, sasl.username, sasl.password);
    const serverFirst = await step(scram.first());
    scram.verify(await step(scram.final(serverFirst)));
  } catch (err) {
    if (err instanceof SaslError) throw new AuthenticationError(`SASL ${sasl.mechanism} with ${address} failed: ${err.message}`, { cause: err });
    throw err;
  }
}
