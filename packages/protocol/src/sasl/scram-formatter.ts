import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/** The SCRAM mechanisms Kafka supports (ScramMechanism.java): hash, key length and minimum iterations. */
export const SCRAM_MECHANISMS = {
  'SCRAM-SHA-256': { hash: 'sha256', keyLength: 32, minIterations: 4096 },
  'SCRAM-SHA-512': { hash: 'sha512', keyLength: 64, minIterations: 4096 },
} as const;

export type ScramMechanism = keyof typeof SCRAM_MECHANISMS;

export function isScramMechanism(name: string): name is ScramMechanism {
  return Object.hasOwn(SCRAM_MECHANISMS, name);
}

/** What a broker keeps for a SCRAM user: never the password (RFC 5802 section 3). */
export interface ScramCredential {
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
  iterations: number;
}

/** Kafka's default and minimum iteration count (kafka-configs `iterations=`). */
export const DEFAULT_SCRAM_ITERATIONS = 4096;

const spec = (m: ScramMechanism) => SCRAM_MECHANISMS[m];

export function scramHmac(m: ScramMechanism, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(spec(m).hash, key).update(data).digest();
}

export function scramHash(m: ScramMechanism, data: Buffer): Buffer {
  return createHash(spec(m).hash).update(data).digest();
}

/** Hi(password, salt, i) of RFC 5802 is PBKDF2 with HMAC-H and one hash-length block. Kafka applies no SASLprep. */
export function scramSaltedPassword(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, spec(m).keyLength, spec(m).hash);
}

export function scramClientKey(m: ScramMechanism, saltedPassword: Buffer): Buffer {
  return scramHmac(m, saltedPassword, 'Client Key');
}

export function scramServerKey(m: ScramMechanism, saltedPassword: Buffer): Buffer {
  return scramHmac(m, saltedPassword, 'Server Key');
}

export function xorBuffers(a: Buffer, b: Buffer): Buffer {
  if (a.length !== b.length) throw new Error('SCRAM: buffers of different lengths');
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Kafka's ScramFormatter.secureRandomString: a random 130-bit number in base 36 (nonces, salts). */
export function secureRandomString(): string {
  const bytes = randomBytes(17);
  bytes[0]! &= 0x03; // 136 random bits down to 130
  return BigInt(`0x${bytes.toString('hex')}`).toString(36);
}

/** A new credential as kafka-configs makes it: salt = UTF-8 of secureRandomString(). */
export function generateScramCredential(m: ScramMechanism, password: string, iterations = DEFAULT_SCRAM_ITERATIONS, salt = Buffer.from(secureRandomString(), 'utf8')): ScramCredential {
  if (!Number.isInteger(iterations) || iterations < spec(m).minIterations) {
    throw new Error(`Iterations ${iterations} is less than the minimum ${spec(m).minIterations} for ${m}`);
  }
  const salted = scramSaltedPassword(m, password, salt, iterations);
  return { salt, storedKey: scramHash(m, scramClientKey(m, salted)), serverKey: scramServerKey(m, salted), iterations };
}

/** ScramCredentialUtils.credentialToString: `salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>`. */
export function formatScramCredential(c: ScramCredential): string {
  return `salt=${c.salt.toString('base64')},stored_key=${c.storedKey.toString('base64')},server_key=${c.serverKey.toString('base64')},iterations=${c.iterations}`;
}

/** ScramCredentialUtils.credentialFromString: exactly those four keys, else an error. */
export function parseScramCredential(text: string): ScramCredential {
  const props = new Map<string, string>();
  for (const token of text.split(',')) {
    const i = token.indexOf('=');
    if (i <= 0) throw new Error(`Credentials not valid: ${text}`);
    props.set(token.slice(0, i), token.slice(i + 1));
  }
  const iterations = Number(props.get('iterations'));
  if (props.size !== 4 || !props.has('salt') || !props.has('stored_key') || !props.has('server_key') || !Number.isInteger(iterations)) {
    throw new Error(`Credentials not valid: ${text}`);
  }
  const b64 = (k: string) => Buffer.from(props.get(k)!, 'base64');
  return { salt: b64('salt'), storedKey: b64('stored_key'), serverKey: b64('server_key'), iterations };
}

/** ScramFormatter.saslName: '=' -> '=3D', ',' -> '=2C'. */
export function toSaslName(username: string): string {
  return username.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

/** ScramFormatter.username: the reverse; any other '=' is invalid. */
export function fromSaslName(saslName: string): string {
  const name = saslName.replace(/=2C/g, ',');
  if (name.replace(/=3D/g, '').includes('=')) throw new Error(`Invalid username: ${saslName}`);
  return name.replace(/=3D/g, '=');
}
