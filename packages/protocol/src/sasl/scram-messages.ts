import { SaslError } from './sasl-error.js';

/*
 * The four SCRAM messages with Kafka's grammar (ScramMessages.java), as regular expressions:
 *   client-first  n,[a=<authzid>],[m=<reserved>,]n=<saslname>,r=<nonce>[,<ext>=<value>]*
 *   server-first  [m=...,]r=<nonce>,s=<base64 salt>,i=<iterations>[,<ext>]*
 *   client-final  c=<base64 channel binding>,r=<nonce>[,<ext>]*,p=<base64 proof>
 *   server-final  e=<error> | v=<base64 signature>[,<ext>]*
 */
const VALUE = '[\\x01-\\x2B\\x2D-\\x7F]+'; // [\x01-\x7F] except ','
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+'; // [\x21-\x7E] except ','
const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+'; // [\x01-\x7F] except ',' '=', or =2C / =3D
const BASE64 = '(?:[a-zA-Z0-9/+]{4})*(?:[a-zA-Z0-9/+]{3}=|[a-zA-Z0-9/+]{2}==)?';
const RESERVED = `(?:m=${VALUE},)?`;
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE})*`;

const CLIENT_FIRST = new RegExp(`^n,(?:a=(?<authzid>${SASLNAME}))?,${RESERVED}n=(?<saslname>${SASLNAME}),r=(?<nonce>${PRINTABLE})(?<extensions>${EXTENSIONS})$`);
const SERVER_FIRST = new RegExp(`^${RESERVED}r=(?<nonce>${PRINTABLE}),s=(?<salt>${BASE64}),i=(?<iterations>[0-9]+)${EXTENSIONS}$`);
const CLIENT_FINAL = new RegExp(`^c=(?<channel>${BASE64}),r=(?<nonce>${PRINTABLE})${EXTENSIONS},p=(?<proof>${BASE64})$`);
const SERVER_FINAL = new RegExp(`^(?:e=(?<error>[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]+))$|^(?:v=(?<signature>${BASE64}))${EXTENSIONS}$`);

export interface ClientFirstMessage {
  authorizationId: string;
  saslName: string;
  nonce: string;
  /** `key=value` extensions after the nonce (Kafka: tokenauth=true), in order. */
  extensions: [string, string][];
}

export function parseClientFirst(bytes: Buffer): ClientFirstMessage {
  const text = bytes.toString('utf8');
  const m = CLIENT_FIRST.exec(text);
  if (!m?.groups) throw new SaslError(`Invalid SCRAM client first message format: ${text}`);
  const ext = m.groups['extensions']!;
  const extensions = ext === '' ? [] : ext.slice(1).split(',').map((kv): [string, string] => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]);
  return { authorizationId: m.groups['authzid'] ?? '', saslName: m.groups['saslname']!, nonce: m.groups['nonce']!, extensions };
}

/** client-first-message-bare: what goes into the AuthMessage. */
export function clientFirstBare(m: Pick<ClientFirstMessage, 'saslName' | 'nonce' | 'extensions'>): string {
  const ext = m.extensions.map(([k, v]) => `${k}=${v}`).join(',');
  return ext === '' ? `n=${m.saslName},r=${m.nonce}` : `n=${m.saslName},r=${m.nonce},${ext}`;
}

export function formatClientFirst(m: Pick<ClientFirstMessage, 'saslName' | 'nonce' | 'extensions'>): string {
  return `n,,${clientFirstBare(m)}`;
}

export interface ServerFirstMessage {
  nonce: string;
  salt: Buffer;
  iterations: number;
}

export function formatServerFirst(m: ServerFirstMessage): string {
  return `r=${m.nonce},s=${m.salt.toString('base64')},i=${m.iterations}`;
}

export function parseServerFirst(bytes: Buffer): ServerFirstMessage {
  const text = bytes.toString('utf8');
  const m = SERVER_FIRST.exec(text);
  if (!m?.groups) throw new SaslError(`Invalid SCRAM server first message format: ${text}`);
  const iterations = Number(m.groups['iterations']);
  if (!Number.isSafeInteger(iterations) || iterations <= 0) throw new SaslError(`Invalid SCRAM server first message format: invalid iterations ${m.groups['iterations']}`);
  return { nonce: m.groups['nonce']!, salt: Buffer.from(m.groups['salt']!, 'base64'), iterations };
}

export interface ClientFinalMessage {
  channelBinding: Buffer;
  nonce: string;
  proof: Buffer;
}

/** client-final-message-without-proof: what goes into the AuthMessage. */
export function clientFinalWithoutProof(m: Pick<ClientFinalMessage, 'channelBinding' | 'nonce'>): string {
  return `c=${m.channelBinding.toString('base64')},r=${m.nonce}`;
}

export function formatClientFinal(m: ClientFinalMessage): string {
  return `${clientFinalWithoutProof(m)},p=${m.proof.toString('base64')}`;
}

export function parseClientFinal(bytes: Buffer): ClientFinalMessage {
  const text = bytes.toString('utf8');
  const m = CLIENT_FINAL.exec(text);
  if (!m?.groups) throw new SaslError(`Invalid SCRAM client final message format: ${text}`);
  return { channelBinding: Buffer.from(m.groups['channel']!, 'base64'), nonce: m.groups['nonce']!, proof: Buffer.from(m.groups['proof']!, 'base64') };
}

export interface ServerFinalMessage {
  error: string | null;
  serverSignature: Buffer | null;
}

export function formatServerFinal(m: ServerFinalMessage): string {
  return m.error !== null ? `e=${m.error}` : `v=${m.serverSignature!.toString('base64')}`;
}

export function parseServerFinal(bytes: Buffer): ServerFinalMessage {
  const text = bytes.toString('utf8');
  const m = SERVER_FINAL.exec(text);
  if (!m?.groups) throw new SaslError(`Invalid SCRAM server final message format: ${text}`);
  if (m.groups['error'] !== undefined) return { error: m.groups['error'], serverSignature: null };
  return { error: null, serverSignature: Buffer.from(m.groups['signature']!, 'base64') };
}
