import type { X509Certificate } from 'node:crypto';

/** Kafka's KafkaPrincipal as text: `User:<name>`; connections nobody authenticated are `User:ANONYMOUS`. */
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

export function userPrincipal(name: string): string {
  return `User:${name}`;
}

/** `Type:name` split at the first ':' (SecurityUtils.parseKafkaPrincipal); throws on text without one. */
export function parsePrincipal(text: string): { type: string; name: string } {
  const i = text.indexOf(':');
  if (i <= 0 || i === text.length - 1) throw new Error(`expected a string in format principalType:principalName but got ${text}`);
  return { type: text.slice(0, i), name: text.slice(i + 1) };
}

/**
 * The principal of a TLS client certificate as Kafka's DefaultKafkaPrincipalBuilder names it: `User:`
 * and the subject distinguished name in RFC 2253 form (X500Principal.getName(): most specific RDN
 * first, "CN=alice,O=gregor").
 */
export function sslPrincipal(cert: X509Certificate): string {
  const rdns = cert.subject.split('\n').filter((l) => l !== '');
  const escaped = rdns.map((rdn) => {
    const i = rdn.indexOf('=');
    const value = rdn.slice(i + 1).replace(/([,+"\\<>;])/g, '\\$1').replace(/^([ #])/, '\\$1').replace(/ $/, '\\ ');
    return `${rdn.slice(0, i)}=${value}`;
  });
  return userPrincipal(escaped.reverse().join(','));
}
