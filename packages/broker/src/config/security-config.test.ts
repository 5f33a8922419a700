import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBrokerConfig } from './broker-config.js';

const base = (extra: Record<string, string>) =>
  new Map(Object.entries({ 'broker.id': '1', 'zookeeper.connect': '127.0.0.1:2181', 'http.port': '-1', ...extra }));

const PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-pw" user_admin="admin-pw" user_alice="alice-pw";';

describe('listener security settings', () => {
  it('gives each listener its protocol from listener.security.protocol.map (Kafka\'s defaults map names to themselves)', () => {
    const c = buildBrokerConfig(
      base({ listeners: 'PLAINTEXT://:9092,SASL_PLAINTEXT://:9093', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS, 'sasl.enabled.mechanisms': 'PLAIN' }),
    );
    expect(c.listeners.map((l) => [l.listenerName, l.securityProtocol])).toEqual([
      ['PLAINTEXT', 'PLAINTEXT'],
      ['SASL_PLAINTEXT', 'SASL_PLAINTEXT'],
    ]);
    expect(c.security.listeners.get('SASL_PLAINTEXT')!.sasl!.mechanisms).toEqual(['PLAIN']);
    expect(c.security.authorizer).toBeNull();
    expect(c.unknownSettings).toEqual([]);
  });

  it('stops the broker when a listener is missing from the map, with Kafka\'s message', () => {
    expect(() => buildBrokerConfig(base({ listeners: 'INTERNAL://:9092,CLIENT://:9093', 'listener.security.protocol.map': 'INTERNAL:PLAINTEXT' }))).toThrow(
      "Error creating broker listeners from 'INTERNAL://:9092,CLIENT://:9093': No security protocol defined for listener CLIENT",
    );
    expect(() => buildBrokerConfig(base({ 'listener.security.protocol.map': 'PLAINTEXT:TLS' }))).toThrow(/Invalid listener.security.protocol.map entry "PLAINTEXT:TLS"/);
  });

  it('takes listener.name.<l>.ssl.* over ssl.*, and requires a keystore on SSL listeners', () => {
    const c = buildBrokerConfig(
      base({
        listeners: 'INTERNAL://:9092,EXTERNAL://:9093',
        'listener.security.protocol.map': 'INTERNAL:SSL,EXTERNAL:SSL',
        'inter.broker.listener.name': 'INTERNAL',
        'ssl.keystore.location': '/etc/gregor/broker.pem',
        'listener.name.external.ssl.keystore.location': '/etc/gregor/external.pem',
        'listener.name.internal.ssl.client.auth': 'required',
        'ssl.truststore.location': '/etc/gregor/ca.pem',
      }),
    );
    const internal = c.security.listeners.get('INTERNAL')!.ssl!;
    const external = c.security.listeners.get('EXTERNAL')!.ssl!;
    expect([internal.keystoreLocation, internal.clientAuth, internal.keystoreType]).toEqual(['/etc/gregor/broker.pem', 'required', 'PEM']);
    expect([external.keystoreLocation, external.clientAuth]).toEqual(['/etc/gregor/external.pem', 'none']);
    expect(() => buildBrokerConfig(base({ listeners: 'SSL://:9093' }))).toThrow(/Listener SSL is SSL but has no keystore/);
    expect(() => buildBrokerConfig(base({ listeners: 'SSL://:9093', 'ssl.keystore.location': '/k', 'ssl.client.auth': 'required' }))).toThrow(/no truststore/);
  });

  it('picks the inter-broker SASL mechanism and its credentials from the inter-broker listener', () => {
    const scram = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="b-pw";';
    const c = buildBrokerConfig(
      base({
        listeners: 'INTERNAL://:9092,EXTERNAL://:9093',
        'listener.security.protocol.map': 'INTERNAL:SASL_PLAINTEXT,EXTERNAL:PLAINTEXT',
        'inter.broker.listener.name': 'INTERNAL',
        'listener.name.internal.scram-sha-512.sasl.jaas.config': scram,
        'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
      }),
    );
    expect(c.security.interBrokerSaslMechanism).toBe('SCRAM-SHA-512');
    expect(c.unknownSettings).toEqual([]);
    expect(() =>
      buildBrokerConfig(base({ listeners: 'SASL_PLAINTEXT://:9092', 'sasl.enabled.mechanisms': 'SCRAM-SHA-256', 'sasl.mechanism.inter.broker.protocol': 'PLAIN' })),
    ).toThrow(/sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms/);
    expect(() => buildBrokerConfig(base({ listeners: 'SASL_PLAINTEXT://:9092' }))).toThrow(/set listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config/);
    expect(() => buildBrokerConfig(base({ listeners: 'SASL_PLAINTEXT://:9092', 'sasl.enabled.mechanisms': 'GSSAPI' }))).toThrow(/GSSAPI is not supported/);
  });

  it('turns the authorizer on with AclAuthorizer, super.users and allow.everyone.if.no.acl.found (default false)', () => {
    const c = buildBrokerConfig(base({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer', 'super.users': 'User:admin; User:broker' }));
    expect(c.security.authorizer).toEqual({ superUsers: ['User:admin', 'User:broker'], allowEveryoneIfNoAclFound: false });
    expect(() => buildBrokerConfig(base({ 'authorizer.class.name': 'com.example.MyAuthorizer' }))).toThrow(/is not supported: use kafka.security.authorizer.AclAuthorizer/);
  });

  it('refuses an HTTP admin on a non-loopback address without a token, and both inter-broker names at once', () => {
    expect(() => buildBrokerConfig(base({ 'http.port': '8780', 'http.host': '0.0.0.0' }))).toThrow(/without a token: set http.auth.token/);
    expect(buildBrokerConfig(base({ 'http.port': '8780', 'http.host': '0.0.0.0', 'http.auth.token': 't' })).httpAuthToken).toBe('t');
    expect(() => buildBrokerConfig(base({ 'inter.broker.listener.name': 'PLAINTEXT', 'security.inter.broker.protocol': 'PLAINTEXT' }))).toThrow(/Only one of/);
  });

  it('http.auth.token.file: a missing file gets a random token (mode 600) that every broker sharing the file then reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gregor-token-'));
    try {
      const file = join(dir, 'http-token');
      const first = buildBrokerConfig(base({ 'http.port': '8780', 'http.host': '0.0.0.0', 'http.auth.token.file': file })).httpAuthToken!;
      expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(readFileSync(file, 'utf8').trim()).toBe(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(buildBrokerConfig(base({ 'broker.id': '2', 'http.port': '8780', 'http.host': '0.0.0.0', 'http.auth.token.file': file })).httpAuthToken).toBe(first);
      // An explicit token wins over the file.
      expect(buildBrokerConfig(base({ 'http.auth.token': 'explicit', 'http.auth.token.file': file })).httpAuthToken).toBe('explicit');
      expect(() => buildBrokerConfig(base({ 'http.auth.token.file': join(dir, 'missing-dir', 'token') }))).toThrow(/http.auth.token.file/);
      // An existing file is only read (it may be on a read-only mount): its folder is not touched at all
      // (writing and removing a file aside would change the folder's mtime).
      const mtime = statSync(dir).mtimeMs;
      await new Promise((r) => setTimeout(r, 20));
      expect(buildBrokerConfig(base({ 'broker.id': '3', 'http.auth.token.file': file })).httpAuthToken).toBe(first);
      expect(statSync(dir).mtimeMs).toBe(mtime);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns about listener-prefixed names it does not know', () => {
    const c = buildBrokerConfig(base({ 'listener.name.plaintext.ssl.keystore.locaton': '/x' }));
    expect(c.unknownSettings.map((u) => u.name)).toEqual(['listener.name.plaintext.ssl.keystore.locaton']);
  });
});
