import { describe, expect, it } from 'vitest';
import { parsePlainToken, plainClientToken } from './plain.js';
import { SaslError } from './sasl-error.js';
import { ScramClient } from './scram-client.js';
import {
  formatScramCredential,
  fromSaslName,
  generateScramCredential,
  parseScramCredential,
  scramHash,
  scramHmac,
  scramSaltedPassword,
  secureRandomString,
  toSaslName,
  xorBuffers,
  type ScramCredential,
} from './scram-formatter.js';
import { ScramServer } from './scram-server.js';

// RFC 7677 section 3: SCRAM-SHA-256, user "user", password "pencil".
const RFC = {
  clientNonce: 'rOprNGfwEbeRWgbNEkqO',
  serverNonce: '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  salt: Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'),
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};
const rfcCredential = (): ScramCredential => generateScramCredential('SCRAM-SHA-256', 'pencil', 4096, RFC.salt);
const b = (s: string) => Buffer.from(s, 'utf8');

describe('SCRAM-SHA-256 against the RFC 7677 test vector', () => {
  it('the client sends exactly the RFC messages and accepts the server signature', () => {
    const client = new ScramClient('SCRAM-SHA-256', 'user', 'pencil', RFC.clientNonce);
    expect(client.first().toString()).toBe(RFC.clientFirst);
    expect(client.final(b(RFC.serverFirst)).toString()).toBe(RFC.clientFinal);
    expect(() => client.verify(b(RFC.serverFinal))).not.toThrow();
  });

  it('the server answers exactly the RFC messages from a stored credential (no password kept)', () => {
    const server = new ScramServer('SCRAM-SHA-256', (u) => (u === 'user' ? rfcCredential() : null), RFC.serverNonce);
    expect(server.evaluate(b(RFC.clientFirst)).toString()).toBe(RFC.serverFirst);
    expect(server.complete).toBe(false);
    expect(server.evaluate(b(RFC.clientFinal)).toString()).toBe(RFC.serverFinal);
    expect(server.complete).toBe(true);
    expect(server.username).toBe('user');
  });

  it('a client rejects a forged server signature', () => {
    const client = new ScramClient('SCRAM-SHA-256', 'user', 'pencil', RFC.clientNonce);
    client.first();
    client.final(b(RFC.serverFirst));
    expect(() => client.verify(b('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='))).toThrow(/Invalid server signature/);
  });
});

describe('SCRAM exchange failures', () => {
  const exchange = (mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', user: string, password: string, store: Map<string, ScramCredential>) => {
    const client = new ScramClient(mechanism, user, password);
    const server = new ScramServer(mechanism, (u) => store.get(u) ?? null);
    const serverFirst = server.evaluate(client.first());
    const serverFinal = server.evaluate(client.final(serverFirst));
    client.verify(serverFinal);
    return server;
  };
  const store = new Map([['alice', generateScramCredential('SCRAM-SHA-512', 'alice-secret', 8192)]]);

  it('SCRAM-SHA-512 with the right password completes on both sides', () => {
    expect(exchange('SCRAM-SHA-512', 'alice', 'alice-secret', store).username).toBe('alice');
  });

  it('a wrong password fails with a message the client never sees', () => {
    const err = (() => {
      try {
        exchange('SCRAM-SHA-512', 'alice', 'wrong', store);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SaslError);
    expect((err as SaslError).clientMessage).toBeNull();
  });

  it('an unknown user fails at client-first, just as silently', () => {
    const server = new ScramServer('SCRAM-SHA-512', () => null);
    expect(() => server.evaluate(new ScramClient('SCRAM-SHA-512', 'mallory', 'x').first())).toThrow(SaslError);
    expect(() => server.evaluate(b('c=biws,r=x,p=AAAA'))).toThrow(/Unexpected challenge/);
  });

  it('an authorization id other than the user fails with Kafka\'s visible message', () => {
    const server = new ScramServer('SCRAM-SHA-512', (u) => store.get(u) ?? null);
    try {
      server.evaluate(b('n,a=admin,n=alice,r=abc'));
      expect.unreachable();
    } catch (e) {
      expect((e as SaslError).clientMessage).toBe('Authentication failed: Client requested an authorization id that is different from username');
    }
  });

  it('malformed messages and too few iterations fail', () => {
    expect(() => new ScramServer('SCRAM-SHA-256', () => rfcCredential()).evaluate(b('p,,n=user,r=abc'))).toThrow(/Invalid SCRAM client first message format/);
    const weak = { ...rfcCredential(), iterations: 1000 };
    expect(() => new ScramServer('SCRAM-SHA-256', () => weak).evaluate(b(RFC.clientFirst))).toThrow(/less than the minimum 4096/);
    expect(() => generateScramCredential('SCRAM-SHA-256', 'x', 100)).toThrow(/minimum 4096/);
  });

  it('a client-final with another nonce is refused', () => {
    const server = new ScramServer('SCRAM-SHA-256', () => rfcCredential(), RFC.serverNonce);
    server.evaluate(b(RFC.clientFirst));
    expect(() => server.evaluate(b(RFC.clientFinal.replace('k0,p=', 'k1,p=')))).toThrow(/nonce/);
  });

  it('accepts librdkafka 2.0\'s client-final, which repeats the client nonce, as Kafka does', () => {
    const salt = Buffer.from('salt');
    const store = new Map([['alice', generateScramCredential('SCRAM-SHA-512', 'pw', 4096, salt)]]);
    const server = new ScramServer('SCRAM-SHA-512', (u) => store.get(u) ?? null, 'snonce');
    const serverFirst = server.evaluate(b('n,,n=alice,r=cnonce')).toString();
    expect(serverFirst).toBe(`r=cnoncesnonce,s=${salt.toString('base64')},i=4096`);
    // librdkafka's client-final carries r=cnonce + (cnonce + snonce), and its proof covers those bytes.
    const withoutProof = 'c=biws,r=cnoncecnoncesnonce';
    const salted = scramSaltedPassword('SCRAM-SHA-512', 'pw', salt, 4096);
    const clientKey = scramHmac('SCRAM-SHA-512', salted, 'Client Key');
    const signature = scramHmac('SCRAM-SHA-512', scramHash('SCRAM-SHA-512', clientKey), Buffer.from(`n=alice,r=cnonce,${serverFirst},${withoutProof}`));
    const proof = xorBuffers(clientKey, signature).toString('base64');
    expect(() => server.evaluate(b(`${withoutProof},p=${proof}`))).not.toThrow();
    expect(server.complete).toBe(true);
  });
});

describe('SCRAM credentials as Kafka stores them in /config/users', () => {
  it('formats salt, stored_key, server_key and iterations in standard base64 and parses them back', () => {
    const c = rfcCredential();
    const text = formatScramCredential(c);
    expect(text).toMatch(/^salt=W22ZaJ0SNY7soEsUEjb6gQ==,stored_key=[A-Za-z0-9+/=]{44},server_key=[A-Za-z0-9+/=]{44},iterations=4096$/);
    expect(parseScramCredential(text)).toEqual(c);
    expect(generateScramCredential('SCRAM-SHA-512', 'p').storedKey).toHaveLength(64);
  });

  it('refuses a credential without exactly the four keys', () => {
    expect(() => parseScramCredential('salt=AA==,stored_key=AA==,server_key=AA==')).toThrow(/Credentials not valid/);
    expect(() => parseScramCredential('salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096,x=1')).toThrow(/Credentials not valid/);
  });

  it('salts are UTF-8 base-36 numbers of 130 random bits, as kafka-configs makes them', () => {
    const s = secureRandomString();
    expect(s).toMatch(/^[0-9a-z]{1,26}$/);
    expect(BigInt(`0x${[...s].reduce((acc, ch) => acc * 36n + BigInt(parseInt(ch, 36)), 0n).toString(16)}`) < 1n << 130n).toBe(true);
  });

  it('escapes , and = in SASL names', () => {
    expect(toSaslName('a=b,c')).toBe('a=3Db=2Cc');
    expect(fromSaslName('a=3Db=2Cc')).toBe('a=b,c');
    expect(() => fromSaslName('a=b')).toThrow(/Invalid username/);
  });
});

describe('SASL/PLAIN tokens', () => {
  it('round-trips authzid NUL user NUL password', () => {
    expect(parsePlainToken(plainClientToken('alice', 'pw'))).toEqual({ authorizationId: '', username: 'alice', password: 'pw' });
  });

  it('refuses tokens Kafka refuses, with its messages', () => {
    expect(() => parsePlainToken(b('alice\u0000pw'))).toThrow('Invalid SASL/PLAIN response: expected 3 tokens, got 2');
    expect(() => parsePlainToken(b('\u0000\u0000pw'))).toThrow('Authentication failed: username not specified');
    expect(() => parsePlainToken(b('\u0000alice\u0000'))).toThrow('Authentication failed: password not specified');
  });
});
