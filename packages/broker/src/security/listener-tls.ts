import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { loadTlsKeyMaterial } from '@gregor/net';
import type { SslListenerSettings } from '../config/security-config.js';

type TlsVersion = NonNullable<SecureContextOptions['minVersion']>;
const VERSIONS: TlsVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

/**
 * Node's tls.createServer options for one SSL/SASL_SSL listener: its keystore and truststore (PEM),
 * ssl.client.auth as requestCert/rejectUnauthorized, ssl.enabled.protocols as the version range.
 * Reading the files happens here, at startup: a bad path stops the broker naming the setting.
 */
export function listenerTlsOptions(listenerName: string, ssl: SslListenerSettings): TlsOptions {
  const prefix = `listener.name.${listenerName.toLowerCase()}.`;
  const material = loadTlsKeyMaterial(ssl, prefix);
  const enabled = ssl.enabledProtocols.filter((p): p is TlsVersion => (VERSIONS as string[]).includes(p)).sort((a, b) => VERSIONS.indexOf(a) - VERSIONS.indexOf(b));
  return {
    ...material,
    requestCert: ssl.clientAuth !== 'none',
    rejectUnauthorized: ssl.clientAuth === 'required',
    ...(enabled.length > 0 ? { minVersion: enabled[0]!, maxVersion: enabled[enabled.length - 1]! } : {}),
  };
}
