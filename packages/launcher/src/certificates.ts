import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CertificateRequest {
  /** File name stem and the certificate's CN, e.g. `broker1` or `alice`. */
  name: string;
  /** Host names and IP addresses for subjectAltName (servers); empty for a client certificate. */
  hosts?: string[];
}

export interface IssuedCertificate {
  /** PEM private key (unencrypted PKCS#8). */
  keyFile: string;
  /** PEM certificate. */
  certFile: string;
  /** PEM keystore for `ssl.keystore.type=PEM`: key, certificate and the CA certificate in one file. */
  keystoreFile: string;
  /** The certificate's subject in RFC 2253 form: the SSL principal is `User:<subject>`. */
  subject: string;
}

export interface CertificateSet {
  dir: string;
  /** PEM truststore (`ssl.truststore.location`): the CA certificate. */
  caFile: string;
  issued: Map<string, IssuedCertificate>;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8', timeout: 30_000 });
  if (r.error) throw new Error(`openssl is needed to make certificates (Debian: apt-get install openssl): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr.trim()}`);
}

/**
 * A private CA and certificates it signs (EC P-256 keys), made with the openssl command: for a
 * local TLS cluster and for tests. Server certificates carry the given host names and IPs as
 * subjectAltName so clients verify them; client certificates serve ssl.client.auth. Days default 3650.
 */
export function generateCertificates(dir: string, requests: readonly CertificateRequest[], options: { days?: number; caName?: string } = {}): CertificateSet {
  mkdirSync(dir, { recursive: true });
  const days = String(options.days ?? 3650);
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...key, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', days, '-subj', `/CN=${options.caName ?? 'gregor-ca'}`], dir);
  const caPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
  const issued = new Map<string, IssuedCertificate>();
  for (const r of requests) {
    if (!/^[A-Za-z0-9._-]+$/.test(r.name)) throw new Error(`certificate name must be a simple file name, got ${JSON.stringify(r.name)}`);
    openssl(['req', ...key, '-keyout', `${r.name}.key`, '-out', `${r.name}.csr`, '-subj', `/O=gregor/CN=${r.name}`], dir);
    const ext = [`basicConstraints=CA:FALSE`];
    const hosts = r.hosts ?? [];
    if (hosts.length > 0) ext.push(`subjectAltName=${hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',')}`);
    writeFileSync(join(dir, `${r.name}.ext`), `${ext.join('\n')}\n`);
    openssl(['x509', '-req', '-in', `${r.name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${r.name}.crt`, '-days', days, '-extfile', `${r.name}.ext`], dir);
    const keyFile = join(dir, `${r.name}.key`);
    const certFile = join(dir, `${r.name}.crt`);
    const keystoreFile = join(dir, `${r.name}.keystore.pem`);
    writeFileSync(keystoreFile, `${readFileSync(keyFile, 'utf8')}${readFileSync(certFile, 'utf8')}${caPem}`, { mode: 0o600 });
    issued.set(r.name, { keyFile, certFile, keystoreFile, subject: `CN=${r.name},O=gregor` });
  }
  return { dir, caFile: join(dir, 'ca.crt'), issued };
}
