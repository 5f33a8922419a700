import { SaslError } from './sasl-error.js';
import { clientFinalWithoutProof, clientFirstBare, formatClientFinal, formatClientFirst, parseServerFinal, parseServerFirst } from './scram-messages.js';
import {
  SCRAM_MECHANISMS,
  constantTimeEqual,
  scramClientKey,
  scramHash,
  scramHmac,
  scramSaltedPassword,
  scramServerKey,
  secureRandomString,
  toSaslName,
  xorBuffers,
  type ScramMechanism,
} from './scram-formatter.js';

/**
 * The client side of one SCRAM exchange (Kafka's ScramSaslClient): first() gives client-first,
 * final(serverFirst) gives client-final, verify(serverFinal) checks the server's signature, so a
 * client also knows the broker holds its credential.
 */
export class ScramClient {
  readonly mechanism: ScramMechanism;
  readonly #username: string;
  readonly #password: string;
  readonly #clientNonce: string;
  #bare = '';
  #authMessage: Buffer | null = null;
  #saltedPassword: Buffer | null = null;

  constructor(mechanism: ScramMechanism, username: string, password: string, clientNonce = secureRandomString()) {
    this.mechanism = mechanism;
    this.#username = username;
    this.#password = password;
    this.#clientNonce = clientNonce;
  }

  first(): Buffer {
    const m = { saslName: toSaslName(this.#username), nonce: this.#clientNonce, extensions: [] };
    this.#bare = clientFirstBare(m);
    return Buffer.from(formatClientFirst(m), 'utf8');
  }

  final(serverFirstBytes: Buffer): Buffer {
    const serverFirst = parseServerFirst(serverFirstBytes);
    if (!serverFirst.nonce.startsWith(this.#clientNonce)) throw new SaslError('Invalid server nonce: does not start with client nonce');
    const min = SCRAM_MECHANISMS[this.mechanism].minIterations;
    if (serverFirst.iterations < min) throw new SaslError(`Requested iterations ${serverFirst.iterations} is less than the minimum ${min} for ${this.mechanism}`);
    this.#saltedPassword = scramSaltedPassword(this.mechanism, this.#password, serverFirst.salt, serverFirst.iterations);
    const withoutProof = { channelBinding: Buffer.from('n,,', 'utf8'), nonce: serverFirst.nonce };
    this.#authMessage = Buffer.from(`${this.#bare},${serverFirstBytes.toString('utf8')},${clientFinalWithoutProof(withoutProof)}`, 'utf8');
    const clientKey = scramClientKey(this.mechanism, this.#saltedPassword);
    const clientSignature = scramHmac(this.mechanism, scramHash(this.mechanism, clientKey), this.#authMessage);
    return Buffer.from(formatClientFinal({ ...withoutProof, proof: xorBuffers(clientKey, clientSignature) }), 'utf8');
  }

  verify(serverFinalBytes: Buffer): void {
    const serverFinal = parseServerFinal(serverFinalBytes);
    if (serverFinal.error !== null) throw new SaslError(`Sasl authentication using ${this.mechanism} failed with error: ${serverFinal.error}`, { visible: true });
    if (!this.#authMessage || !this.#saltedPassword) throw new SaslError('SCRAM: server-final before client-final');
    const expected = scramHmac(this.mechanism, scramServerKey(this.mechanism, this.#saltedPassword), this.#authMessage);
    if (!constantTimeEqual(expected, serverFinal.serverSignature!)) throw new SaslError('Invalid server signature in server final message', { visible: true });
  }
}
