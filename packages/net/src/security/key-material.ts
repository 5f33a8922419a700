import { readFileSync } from 'node:fs';
import { ConfigError } from '@gregor/common';

/**
 * Where a TLS endpoint's keys come from, with Kafka's setting names (KIP-651 PEM support, 2.7+):
 *   ssl.keystore.type            PEM (default here) or PKCS12; JKS cannot be read by Node
 *   ssl.keystore.location        PEM: private key and certificate chain in one file; PKCS12: the .p12 file
 *   ssl.keystore.password        PKCS12 password
 *   ssl.key.password             password of an encrypted PEM private key
 *   ssl.keystore.certificate.chain / ssl.keystore.key   the same PEM text inline
 *   ssl.truststore.type          PEM
 *   ssl.truststore.location      PEM file of trusted CA certificates
 *   ssl.truststore.certificates  the same PEM text inline
 */
export interface SslStoreSettings {
  keystoreType?: string | null;
  keystoreLocation?: string | null;
  keystorePassword?: string | null;
  keyPassword?: string | null;
  keystoreCertificateChain?: string | null;
  keystoreKey?: string | null;
  truststoreType?: string | null;
  truststoreLocation?: string | null;
  truststoreCertificates?: string | null;
}

/** The Node tls options that carry keys and trust anchors. */
export interface TlsKeyMaterial {
  key?: string | Buffer;
  cert?: string | Buffer;
  pfx?: Buffer;
  passphrase?: string;
  ca?: string | Buffer;
}

const PRIVATE_KEY = /-----BEGIN (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----/;
const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function read(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`Cannot read ${what} ${path}: ${(err as Error).message}`);
  }
}

/** Loads keystore and truststore into Node's tls options; throws ConfigError naming the setting at fault. */
export function loadTlsKeyMaterial(s: SslStoreSettings, prefix = ''): TlsKeyMaterial {
  const out: TlsKeyMaterial = {};
  const keystoreType = (s.keystoreType ?? 'PEM').toUpperCase();
  if (s.keystoreLocation || s.keystoreCertificateChain || s.keystoreKey) {
    if (keystoreType === 'PKCS12') {
      if (!s.keystoreLocation) throw new ConfigError(`${prefix}ssl.keystore.location is required with ssl.keystore.type=PKCS12`);
      out.pfx = read(s.keystoreLocation, `${prefix}ssl.keystore.location`);
      if (s.keystorePassword) out.passphrase = s.keystorePassword;
    } else if (keystoreType === 'PEM') {
      let text: string;
      if (s.keystoreLocation) {
        text = read(s.keystoreLocation, `${prefix}ssl.keystore.location`).toString('utf8');
      } else {
        if (!s.keystoreCertificateChain || !s.keystoreKey) {
          throw new ConfigError(`${prefix}ssl.keystore.certificate.chain and ${prefix}ssl.keystore.key must be set together`);
        }
        text = `${s.keystoreKey}\n${s.keystoreCertificateChain}`;
      }
      const key = PRIVATE_KEY.exec(text)?.[0];
      const certs = text.match(CERTIFICATE);
      if (!key) throw new ConfigError(`${prefix}ssl.keystore: no PEM private key found (expected -----BEGIN PRIVATE KEY-----)`);
      if (!certs) throw new ConfigError(`${prefix}ssl.keystore: no PEM certificate found (expected -----BEGIN CERTIFICATE-----)`);
      out.key = key;
      out.cert = certs.join('\n');
      if (s.keyPassword) out.passphrase = s.keyPassword;
    } else {
      throw new ConfigError(`${prefix}ssl.keystore.type ${keystoreType} is not supported: use PEM (or PKCS12); convert a JKS keystore with keytool -importkeystore -deststoretype PKCS12`);
    }
  }
  const truststoreType = (s.truststoreType ?? 'PEM').toUpperCase();
  if (s.truststoreLocation || s.truststoreCertificates) {
    if (truststoreType !== 'PEM') throw new ConfigError(`${prefix}ssl.truststore.type ${truststoreType} is not supported: use PEM`);
    const text = s.truststoreLocation ? read(s.truststoreLocation, `${prefix}ssl.truststore.location`).toString('utf8') : s.truststoreCertificates!;
    const certs = text.match(CERTIFICATE);
    if (!certs) throw new ConfigError(`${prefix}ssl.truststore: no PEM certificate found`);
    out.ca = certs.join('\n');
  }
  return out;
}
