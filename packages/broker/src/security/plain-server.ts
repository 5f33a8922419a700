import { timingSafeEqual, createHash } from 'node:crypto';
import { parsePlainToken, SaslError } from '@gregor/protocol';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * SASL/PLAIN on the broker (Kafka's PlainSaslServer with PlainServerCallbackHandler): one token,
 * checked against the listener's JAAS `user_<name>="<password>"` entries, with Kafka's messages.
 * Passwords are compared by digest in constant time.
 */
export class PlainServer {
  readonly mechanism = 'PLAIN';
  readonly #users: ReadonlyMap<string, string>;
  #username: string | null = null;

  constructor(users: ReadonlyMap<string, string>) {
    this.#users = users;
  }

  get complete(): boolean {
    return this.#username !== null;
  }

  get username(): string {
    if (this.#username === null) throw new Error('Authentication exchange has not completed');
    return this.#username;
  }

  evaluate(token: Buffer): Buffer {
    if (this.#username !== null) throw new SaslError('Unexpected challenge in Sasl server state COMPLETE');
    const { authorizationId, username, password } = parsePlainToken(token);
    const expected = this.#users.get(username);
    if (expected === undefined || !timingSafeEqual(digest(expected), digest(password))) {
      throw new SaslError('Authentication failed: Invalid username or password', { visible: true });
    }
    if (authorizationId !== '' && authorizationId !== username) {
      throw new SaslError('Authentication failed: Client requested an authorization id that is different from username', { visible: true });
    }
    this.#username = username;
    return Buffer.alloc(0);
  }
}
