import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import { ConfigError } from '@gregor/common';
import { jaasCredentials, parseJaasConfig } from './jaas.js';
import { loadTlsKeyMaterial } from './key-material.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
export type SaslMechanismName = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
export const SASL_MECHANISMS: readonly SaslMechanismName[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

export interface SaslCredentials {
  mechanism: SaslMechanismName;
  username: string;
  password: string;
}

/**
 * How a client connection is secured: `tls` present = SSL or SASL_SSL (Node's tls.connect options:
 * ca, cert, key, checkServerIdentity...), `sasl` present = SASL_PLAINTEXT or SASL_SSL.
 */
export interface ClientSecurity {
  tls?: TlsConnectionOptions;
  sasl?: SaslCredentials;
}

export function securityProtocolOf(security: ClientSecurity | undefined): SecurityProtocol {
  if (!security) return 'PLAINTEXT';
  if (security.tls) return security.sasl ? 'SASL_SSL' : 'SSL';
  return security.sasl ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
}

export function isSecurityProtocol(s: string): s is SecurityProtocol {
  return (SECURITY_PROTOCOLS as readonly string[]).includes(s);
}

export function isSaslMechanism(s: string): s is SaslMechanismName {
  return (SASL_MECHANISMS as readonly string[]).includes(s);
}

/** No hostname check (ssl.endpoint.identification.algorithm set empty): only the chain is verified. */
const skipHostnameCheck = (): undefined => undefined;

/**
 * A client's security from Kafka client settings (a client.properties / --command-config file):
 * security.protocol, sasl.mechanism, sasl.jaas.config (username/password of PlainLoginModule or
 * ScramLoginModule), the ssl.keystore.* / ssl.truststore.* settings (PEM), and
 * ssl.endpoint.identification.algorithm (https, the default, checks the broker's host name; empty
 * turns that off). librdkafka's names are accepted too: sasl.username, sasl.password,
 * ssl.ca.location, ssl.certificate.location, ssl.key.location, ssl.key.password.
 */
export function clientSecurityFromProperties(props: ReadonlyMap<string, string> | Record<string, string>): ClientSecurity {
  const get = (k: string): string | undefined => {
    const v = props instanceof Map ? props.get(k) : (props as Record<string, string>)[k];
    return v === undefined ? undefined : v.trim();
  };
  const protocol = (get('security.protocol') ?? 'PLAINTEXT').toUpperCase();
  if (!isSecurityProtocol(protocol)) throw new ConfigError(`security.protocol must be one of ${SECURITY_PROTOCOLS.join(', ')}, got "${protocol}"`);
  const security: ClientSecurity = {};
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    const material = loadTlsKeyMaterial({
      keystoreType: get('ssl.keystore.type') ?? null,
      keystoreLocation: get('ssl.keystore.location') ?? null,
      keystorePassword: get('ssl.keystore.password') ?? null,
      keyPassword: get('ssl.key.password') ?? null,
      keystoreCertificateChain: get('ssl.keystore.certificate.chain') ?? null,
      keystoreKey: get('ssl.keystore.key') ?? null,
      truststoreType: get('ssl.truststore.type') ?? null,
      truststoreLocation: get('ssl.truststore.location') ?? get('ssl.ca.location') ?? null,
      truststoreCertificates: get('ssl.truststore.certificates') ?? null,
    });
    const certFile = get('ssl.certificate.location');
    const keyFile = get('ssl.key.location');
    if (certFile || keyFile) {
      if (!certFile || !keyFile) throw new ConfigError('ssl.certificate.location and ssl.key.location must be set together');
      const read = (f: string) => {
        try {
          return readFileSync(f, 'utf8');
        } catch (err) {
          throw new ConfigError(`Cannot read ${f}: ${(err as Error).message}`);
        }
      };
      Object.assign(material, loadTlsKeyMaterial({ keystoreKey: read(keyFile), keystoreCertificateChain: read(certFile), keyPassword: get('ssl.key.password') ?? null }));
    }
    security.tls = { ...material, ...(get('ssl.endpoint.identification.algorithm') === '' ? { checkServerIdentity: skipHostnameCheck } : {}) };
  }
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    const mechanism = (get('sasl.mechanism') ?? 'GSSAPI').toUpperCase();
    if (!isSaslMechanism(mechanism)) throw new ConfigError(`sasl.mechanism must be one of ${SASL_MECHANISMS.join(', ')}, got "${mechanism}"`);
    const jaas = get('sasl.jaas.config');
    const fromJaas = jaas ? jaasCredentials(parseJaasConfig(jaas)) : null;
    const username = fromJaas?.username ?? get('sasl.username');
    const password = fromJaas?.password ?? get('sasl.password');
    if (username === undefined || password === undefined) {
      throw new ConfigError(`${protocol} with ${mechanism} needs a username and password: sasl.jaas.config with username="..." password="..." (or sasl.username and sasl.password)`);
    }
    security.sasl = { mechanism, username, password };
  }
  return security;
}
