import { SaslError } from './sasl-error.js';
import {
  clientFinalWithoutProof,
  clientFirstBare,
  formatServerFinal,
  formatServerFirst,
  parseClientFinal,
  parseClientFirst,
  type ClientFirstMessage,
} from './scram-messages.js';
import {
  SCRAM_MECHANISMS,
  constantTimeEqual,
  fromSaslName,
  scramHash,
  scramHmac,
  secureRandomString,
  xorBuffers,
  type ScramCredential,
  type ScramMechanism,
} from './scram-formatter.js';

type State = 'client-first' | 'client-final' | 'complete' | 'failed';

/**
 * The broker side of one SCRAM exchange (Kafka's ScramSaslServer): client-first -> server-first,
 * client-final -> server-final. Credentials come from `lookup` (the cache of /config/users).
 * Unknown users, too few iterations and wrong proofs fail with hidden messages, so the client only
 * hears the generic "invalid credentials"; a mismatched authzid fails with Kafka's visible message.
 */
export class ScramServer {
  readonly mechanism: ScramMechanism;
  readonly #lookup: (username: string) => ScramCredential | null;
  readonly #serverNonce: string;
  #state: State = 'client-first';
  #clientFirst: ClientFirstMessage | null = null;
  #serverFirst = '';
  #credential: ScramCredential | null = null;
  #username: string | null = null;

  constructor(mechanism: ScramMechanism, lookup: (username: string) => ScramCredential | null, serverNonce = secureRandomString()) {
    this.mechanism = mechanism;
    this.#lookup = lookup;
    this.#serverNonce = serverNonce;
  }

  get complete(): boolean {
    return this.#state === 'complete';
  }

  /** The authenticated user (the authorization id), once complete. */
  get username(): string {
    if (this.#state !== 'complete' || this.#username === null) throw new Error('Authentication exchange has not completed');
    return this.#username;
  }

  /** Evaluates one client message and returns the server's answer. Throws SaslError on failure (then the exchange is over). */
  evaluate(response: Buffer): Buffer {
    try {
      switch (this.#state) {
        case 'client-first':
          return this.#onClientFirst(response);
        case 'client-final':
          return this.#onClientFinal(response);
        default:
          throw new SaslError(`Unexpected challenge in Sasl server state ${this.#state}`);
      }
    } catch (err) {
      this.#state = 'failed';
      this.#credential = null;
      throw err instanceof SaslError ? err : new SaslError((err as Error).message, { cause: err });
    }
  }

  #onClientFirst(response: Buffer): Buffer {
    const first = parseClientFirst(response);
    let username: string;
    try {
      username = fromSaslName(first.saslName);
    } catch (err) {
      throw new SaslError('Authentication failed: Credentials could not be obtained', { cause: err });
    }
    const credential = this.#lookup(username);
    if (!credential) throw new SaslError('Authentication failed: Invalid user credentials');
    if (first.authorizationId !== '' && first.authorizationId !== username) {
      throw new SaslError('Authentication failed: Client requested an authorization id that is different from username', { visible: true });
    }
    const min = SCRAM_MECHANISMS[this.mechanism].minIterations;
    if (credential.iterations < min) throw new SaslError(`Iterations ${credential.iterations} is less than the minimum ${min} for ${this.mechanism}`);
    this.#clientFirst = first;
    this.#credential = credential;
    this.#username = username;
    this.#serverFirst = formatServerFirst({ nonce: first.nonce + this.#serverNonce, salt: credential.salt, iterations: credential.iterations });
    this.#state = 'client-final';
    return Buffer.from(this.#serverFirst, 'utf8');
  }

  #onClientFinal(response: Buffer): Buffer {
    const final = parseClientFinal(response);
    const first = this.#clientFirst!;
    const credential = this.#credential!;
    // Kafka 2.4 does not compare the final nonce, and librdkafka 2.0 sends the client nonce twice there
    // (cnonce + cnonce + snonce). It must still end with this exchange's nonce, and the proof covers
    // the exact bytes the client sent.
    if (!final.nonce.endsWith(first.nonce + this.#serverNonce)) throw new SaslError('Invalid client credentials: nonce mismatch');
    const authMessage = Buffer.from(`${clientFirstBare(first)},${this.#serverFirst},${clientFinalWithoutProof(final)}`, 'utf8');
    const clientSignature = scramHmac(this.mechanism, credential.storedKey, authMessage);
    if (final.proof.length !== clientSignature.length) throw new SaslError('Invalid client credentials');
    const computedStoredKey = scramHash(this.mechanism, xorBuffers(clientSignature, final.proof));
    if (!constantTimeEqual(computedStoredKey, credential.storedKey)) throw new SaslError('Invalid client credentials');
    const serverSignature = scramHmac(this.mechanism, credential.serverKey, authMessage);
    this.#credential = null;
    this.#state = 'complete';
    return Buffer.from(formatServerFinal({ error: null, serverSignature }), 'utf8');
  }
}
