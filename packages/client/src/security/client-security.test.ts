import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCertificates, type CertificateSet } from '@gregor/launcher';
import { clientSecurityFromProperties, jaasCredentials, jaasPlainUsers, loadTlsKeyMaterial, parseJaasConfig, securityProtocolOf } from '@gregor/net';

let dir: string;
let certs: CertificateSet;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gregor-client-sec-'));
  certs = generateCertificates(dir, [{ name: 'broker', hosts: ['localhost', '127.0.0.1'] }, { name: 'alice' }]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('JAAS configuration (sasl.jaas.config)', () => {
  it('reads Kafka\'s broker PLAIN entry: own credentials and user_<name> passwords', () => {
    const entries = parseJaasConfig(
      'org.apache.kafka.common.security.plain.PlainLoginModule required\n  username="admin"  password="admin-secret"\n  user_admin="admin-secret" user_alice="a;b \\"c\\"";',
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]!.loginModule).toBe('org.apache.kafka.common.security.plain.PlainLoginModule');
    expect(jaasCredentials(entries)).toEqual({ username: 'admin', password: 'admin-secret' });
    expect([...jaasPlainUsers(entries)]).toEqual([
      ['admin', 'admin-secret'],
      ['alice', 'a;b "c"'],
    ]);
  });

  it('refuses entries without a control flag or the final ";"', () => {
    expect(() => parseJaasConfig('org.x.ScramLoginModule username="a";')).toThrow(/control flag not specified/);
    expect(() => parseJaasConfig('org.x.ScramLoginModule required username="a"')).toThrow(/must end with ";"/);
    expect(() => parseJaasConfig('')).toThrow(/no login module/);
  });
});

describe('PEM key material', () => {
  it('splits a PEM keystore into key and chain, and reads a PEM truststore', () => {
    const m = loadTlsKeyMaterial({ keystoreLocation: certs.issued.get('broker')!.keystoreFile, truststoreLocation: certs.caFile });
    expect(String(m.key)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(String(m.cert).match(/BEGIN CERTIFICATE/g)).toHaveLength(2); // own certificate and the CA
    expect(String(m.ca)).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('says what is wrong with unusable settings', () => {
    expect(() => loadTlsKeyMaterial({ keystoreType: 'JKS', keystoreLocation: '/x.jks' })).toThrow(/JKS is not supported: use PEM/);
    expect(() => loadTlsKeyMaterial({ keystoreLocation: join(dir, 'missing.pem') })).toThrow(/Cannot read ssl.keystore.location/);
    const onlyCert = join(dir, 'only-cert.pem');
    writeFileSync(onlyCert, '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n');
    expect(() => loadTlsKeyMaterial({ keystoreLocation: onlyCert })).toThrow(/no PEM private key/);
  });
});

describe('client security from Kafka client settings', () => {
  it('SASL_SSL with SCRAM credentials from sasl.jaas.config and a PEM truststore', () => {
    const s = clientSecurityFromProperties({
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="pw";',
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.caFile,
    });
    expect(securityProtocolOf(s)).toBe('SASL_SSL');
    expect(s.sasl).toEqual({ mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'pw' });
    expect(String(s.tls!.ca)).toContain('BEGIN CERTIFICATE');
    expect(s.tls!.checkServerIdentity).toBeUndefined(); // https: host names are checked
  });

  it('SSL with librdkafka names and no hostname check', () => {
    const alice = certs.issued.get('alice')!;
    const s = clientSecurityFromProperties(
      new Map([
        ['security.protocol', 'ssl'],
        ['ssl.ca.location', certs.caFile],
        ['ssl.certificate.location', alice.certFile],
        ['ssl.key.location', alice.keyFile],
        ['ssl.endpoint.identification.algorithm', ''],
      ]),
    );
    expect(securityProtocolOf(s)).toBe('SSL');
    expect(String(s.tls!.key)).toContain('PRIVATE KEY');
    expect(s.tls!.checkServerIdentity).toBeTypeOf('function');
  });

  it('refuses SASL without credentials and unknown protocols or mechanisms', () => {
    expect(() => clientSecurityFromProperties({ 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'PLAIN' })).toThrow(/needs a username and password/);
    expect(() => clientSecurityFromProperties({ 'security.protocol': 'SASL_PLAINTEXT' })).toThrow(/sasl.mechanism must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, got "GSSAPI"/);
    expect(() => clientSecurityFromProperties({ 'security.protocol': 'TLS' })).toThrow(/security.protocol must be one of/);
    expect(clientSecurityFromProperties({})).toEqual({});
  });
});
