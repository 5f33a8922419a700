import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificates, type CertificateSet } from '@gregor/launcher';
import { silentLogger } from '@gregor/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../../../test/support/in-process-cluster.js';
import { startAdminServer, type AdminServer } from './index.js';

const TOKEN = 'https-admin-token';

/**
 * The HTTP admin's optional TLS (http.ssl.keystore.location, a PEM key and certificate chain): a listening
 * admin server on a real broker answers HTTPS with a certificate its CA verifies, still asks for the bearer
 * token, and serves no plain HTTP on that port.
 */
describe('HTTP admin over TLS (http.ssl.keystore.*)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let admin: AdminServer;
  let certs: CertificateSet;
  let ca = '';
  const dir = mkdtempSync(join(tmpdir(), 'gregor-admin-https-'));

  beforeAll(async () => {
    certs = generateCertificates(join(dir, 'certs'), [{ name: 'admin-http', hosts: ['localhost', '127.0.0.1'] }]);
    ca = readFileSync(certs.caFile, 'utf8');
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'http.ssl.keystore.location': certs.issued.get('admin-http')!.keystoreFile, 'http.ssl.keystore.type': 'PEM' });
    admin = await startAdminServer(broker.server, { host: '127.0.0.1', port: 0, logger: silentLogger(), authToken: TOKEN });
  }, 60_000);

  afterAll(async () => {
    await admin?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
    removeDir(dir);
  });

  /** One HTTPS request; `trust` false: the system CAs only (ours is private). */
  function request(method: string, path: string, opts: { token?: string; body?: unknown; trust?: boolean } = {}): Promise<{ status: number; body: string; peerSubject: string }> {
    return new Promise((resolve, reject) => {
      const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
      const req = https.request(
        {
          host: '127.0.0.1',
          port: admin.port,
          method,
          path,
          ...(opts.trust === false ? {} : { ca }),
          headers: {
            ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          },
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          const peer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), peerSubject: String(peer.subject?.CN ?? '') }));
        },
      );
      req.on('error', reject);
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.end(payload);
    });
  }

  it('answers HTTPS with the keystore\'s certificate, verified against its CA', async () => {
    const res = await request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'ok', brokerId: 1 });
    expect(res.peerSubject).toBe('admin-http');
    // A client that does not trust the private CA refuses the server: it is the keystore's certificate, not a default one.
    await expect(request('GET', '/healthz', { trust: false })).rejects.toThrow(/certificate/i);
  });

  it('writes and record reads still need the bearer token over HTTPS', async () => {
    const denied = await request('POST', '/v1/topics', { body: { name: 'tls-topic', partitions: 1, replicationFactor: 1 } });
    expect(denied.status).toBe(401);
    expect(JSON.parse(denied.body).error.code).toBe('GREGOR_ERR_UNAUTHORIZED');
    const wrong = await request('POST', '/v1/topics', { token: 'not-the-token', body: { name: 'tls-topic', partitions: 1, replicationFactor: 1 } });
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.body).error.code).toBe('GREGOR_ERR_FORBIDDEN');
    const created = await request('POST', '/v1/topics', { token: TOKEN, body: { name: 'tls-topic', partitions: 1, replicationFactor: 1 } });
    expect(created.status, created.body).toBe(201);
    const topics = await request('GET', '/v1/topics', { token: TOKEN });
    expect(topics.status).toBe(200);
    expect(topics.body).toContain('tls-topic');
    const records = await request('GET', '/v1/topics/tls-topic/partitions/0/records?offset=0');
    expect(records.status).toBe(401);
  });

  it('serves no plain HTTP on the TLS port', async () => {
    // A plain HTTP request on a raw socket: the TLS server never answers it with HTTP.
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = net.connect({ host: '127.0.0.1', port: admin.port });
      const chunks: Buffer[] = [];
      sock.on('connect', () => sock.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${admin.port}\r\nConnection: close\r\n\r\n`));
      sock.on('data', (c: Buffer) => chunks.push(c));
      sock.on('error', () => resolve(Buffer.concat(chunks).toString('latin1')));
      sock.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      setTimeout(() => {
        sock.destroy();
        reject(new Error('the TLS port neither answered nor closed a plain HTTP request in 10 s'));
      }, 10_000).unref();
    });
    expect(answer).not.toMatch(/^HTTP\//);
    expect(answer).not.toContain('"status"');
    // The same port still serves HTTPS.
    expect((await request('GET', '/healthz')).status).toBe(200);
  });
});
