import { ErrorCode } from '@gregor/common';
import {
  ApiVersions,
  Reader,
  SaslAuthenticate,
  SaslError,
  SaslHandshake,
  ScramServer,
  encodeResponseFrame,
  genericAuthenticationFailure,
  isScramMechanism,
  readRequestHeader,
  type SaslAuthenticateResponse,
} from '@gregor/protocol';
import type { SaslMechanismName } from '@gregor/net';
import { PlainServer } from './plain-server.js';
import { userPrincipal } from './principal.js';
import type { ScramCredentialCache } from './scram-credential-cache.js';

/** The outcome of one frame read before the client is authenticated. */
export interface AuthStep {
  /** Frames to write (size prefixes included), or null for none. */
  response: Buffer[] | null;
  state: 'pending' | 'complete' | 'failed';
  /** The authenticated principal (`User:<name>`) once complete. */
  principal?: string;
  /** Why it failed, for the broker's log. */
  reason?: string;
}

export interface SaslServerOptions {
  mechanisms: readonly SaslMechanismName[];
  /** PLAIN users of the listener (JAAS user_<name> entries). */
  plainUsers: ReadonlyMap<string, string>;
  scramCredentials: ScramCredentialCache;
  /** Answers an ApiVersions frame as after authentication (KafkaApis). */
  apiVersions: (frame: Buffer) => Buffer[] | null | Promise<Buffer[] | null>;
}

type State = 'handshake-or-versions' | 'handshake' | 'authenticate' | 'complete' | 'failed';

interface MechanismServer {
  evaluate(token: Buffer): Buffer;
  readonly complete: boolean;
  readonly username: string;
}

const API_VERSIONS = ApiVersions.apiKey;

/**
 * One connection's SASL exchange on a SASL_PLAINTEXT or SASL_SSL listener (Kafka's
 * SaslServerAuthenticator): ApiVersions at most once, then SaslHandshake naming an enabled
 * mechanism, then the mechanism's tokens: raw size-prefixed frames after handshake v0, SaslAuthenticate
 * requests after v1. Anything else before authentication fails the connection without an answer;
 * bad credentials are answered with SASL_AUTHENTICATION_FAILED and Kafka's message.
 */
export class SaslServerAuthenticator {
  readonly #opts: SaslServerOptions;
  #state: State = 'handshake-or-versions';
  #rawTokens = false;
  #mechanismName = '';
  #server: MechanismServer | null = null;

  constructor(opts: SaslServerOptions) {
    this.#opts = opts;
  }

  get complete(): boolean {
    return this.#state === 'complete';
  }

  async handle(frame: Buffer): Promise<AuthStep> {
    try {
      switch (this.#state) {
        case 'handshake-or-versions':
        case 'handshake':
          return await this.#onKafkaRequest(frame);
        case 'authenticate':
          return this.#rawTokens ? this.#onRawToken(frame) : this.#onAuthenticateRequest(frame);
        default:
          return this.#fail(null, `frame in state ${this.#state}`);
      }
    } catch (err) {
      return this.#fail(null, (err as Error).message);
    }
  }

  async #onKafkaRequest(frame: Buffer): Promise<AuthStep> {
    const r = new Reader(frame);
    const header = readRequestHeader(r);
    if (header.apiKey === API_VERSIONS) {
      if (this.#state !== 'handshake-or-versions') return this.#fail(null, 'a second ApiVersions request during SASL authentication');
      if (ApiVersions.versions.has(header.apiVersion)) this.#state = 'handshake';
      return { response: await this.#opts.apiVersions(frame), state: 'pending' };
    }
    if (header.apiKey !== SaslHandshake.apiKey) return this.#fail(null, `Unexpected Kafka request of type ${header.apiKey} during SASL handshake.`);
    const codec = SaslHandshake.versions.get(header.apiVersion);
    if (!codec) return this.#fail(null, `SaslHandshake v${header.apiVersion} is not supported`);
    const { mechanism } = codec.decodeRequest(r);
    const enabled = [...this.#opts.mechanisms];
    if (!(enabled as string[]).includes(mechanism)) {
      const response = encodeResponseFrame(codec, header.correlationId, { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: enabled });
      return this.#fail(response, `Unsupported SASL mechanism ${mechanism}`);
    }
    this.#mechanismName = mechanism;
    this.#server = this.#newServer(mechanism as SaslMechanismName);
    this.#rawTokens = header.apiVersion === 0;
    this.#state = 'authenticate';
    return { response: encodeResponseFrame(codec, header.correlationId, { errorCode: ErrorCode.NONE, mechanisms: enabled }), state: 'pending' };
  }

  #newServer(mechanism: SaslMechanismName): MechanismServer {
    if (isScramMechanism(mechanism)) return new ScramServer(mechanism, (user) => this.#opts.scramCredentials.get(mechanism, user));
    return new PlainServer(this.#opts.plainUsers);
  }

  /** After SaslHandshake v0: the frame is the token; the answer is a raw frame too. A failure just closes (v0 cannot say why). */
  #onRawToken(token: Buffer): AuthStep {
    const server = this.#server!;
    let challenge: Buffer;
    try {
      challenge = server.evaluate(token);
    } catch (err) {
      return this.#fail(null, (err as Error).message);
    }
    const frame = Buffer.allocUnsafe(4 + challenge.length);
    frame.writeInt32BE(challenge.length, 0);
    challenge.copy(frame, 4);
    return this.#progress([frame]);
  }

  #onAuthenticateRequest(frame: Buffer): AuthStep {
    const r = new Reader(frame);
    const header = readRequestHeader(r);
    if (header.apiKey !== SaslAuthenticate.apiKey) return this.#fail(null, `Unexpected Kafka request of type ${header.apiKey} during SASL authentication.`);
    const codec = SaslAuthenticate.versions.get(header.apiVersion);
    if (!codec) return this.#fail(null, `SaslAuthenticate v${header.apiVersion} is not supported`);
    if (codec.flexible) r.skipTaggedFields();
    r.flexible = codec.flexible;
    const { authBytes } = codec.decodeRequest(r);
    const answer = (res: SaslAuthenticateResponse) => encodeResponseFrame(codec, header.correlationId, res);
    let challenge: Buffer;
    try {
      challenge = this.#server!.evaluate(authBytes);
    } catch (err) {
      const message = err instanceof SaslError && err.clientMessage !== null ? err.clientMessage : genericAuthenticationFailure(this.#mechanismName);
      const response = answer({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 });
      return this.#fail(response, (err as Error).message);
    }
    return this.#progress(answer({ errorCode: ErrorCode.NONE, errorMessage: null, authBytes: challenge, sessionLifetimeMs: 0 }));
  }

  #progress(response: Buffer[]): AuthStep {
    const server = this.#server!;
    if (!server.complete) return { response, state: 'pending' };
    this.#state = 'complete';
    return { response, state: 'complete', principal: userPrincipal(server.username) };
  }

  #fail(response: Buffer[] | null, reason: string): AuthStep {
    this.#state = 'failed';
    this.#server = null;
    return { response, state: 'failed', reason: this.#mechanismName ? `${this.#mechanismName}: ${reason}` : reason };
  }
}
