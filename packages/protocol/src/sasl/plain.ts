import { SaslError } from './sasl-error.js';

/** The client's only SASL/PLAIN message (RFC 4616): [authzid] NUL authcid NUL passwd. */
export function plainClientToken(username: string, password: string, authorizationId = ''): Buffer {
  return Buffer.from(`${authorizationId}\u0000${username}\u0000${password}`, 'utf8');
}

export interface PlainCredentials {
  authorizationId: string;
  username: string;
  password: string;
}

/** Parses a PLAIN token as Kafka's PlainSaslServer does (its messages included). */
export function parsePlainToken(token: Buffer): PlainCredentials {
  const text = token.toString('utf8');
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < 4; i++) {
    const end = text.indexOf('\u0000', start);
    if (end === -1) {
      parts.push(text.slice(start));
      break;
    }
    parts.push(text.slice(start, end));
    start = end + 1;
  }
  if (parts.length !== 3) throw new SaslError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`, { visible: true });
  const [authorizationId, username, password] = parts as [string, string, string];
  if (username === '') throw new SaslError('Authentication failed: username not specified', { visible: true });
  if (password === '') throw new SaslError('Authentication failed: password not specified', { visible: true });
  return { authorizationId, username, password };
}
