import { afterEach, describe, expect, it } from 'vitest';
import net from 'node:net';
import { silentLogger } from '@gregor/common';
import { SocketServer, type ConnectionLimits, type FrameHandler } from './socket-server.js';

const servers: SocketServer[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await s.stop();
});

/** Echoes each request frame back as the response (size prefix included). */
const echo: FrameHandler = (frame) => {
  const size = Buffer.alloc(4);
  size.writeInt32BE(frame.length);
  return [size, Buffer.from(frame)];
};

async function start(limits: Partial<ConnectionLimits>, handler: FrameHandler = echo, extra: { interBroker?: boolean } = {}): Promise<{ server: SocketServer; port: number; internal: number }> {
  const server = new SocketServer({
    listeners: [
      { listenerName: 'CLIENT', host: '127.0.0.1', port: 0 },
      { listenerName: 'INTERNAL', host: '127.0.0.1', port: 0 },
    ],
    maxRequestBytes: 1024 * 1024,
    handler,
    logger: silentLogger(),
    limits,
    interBrokerListener: extra.interBroker === false ? undefined : 'INTERNAL',
  });
  await server.start();
  servers.push(server);
  return { server, port: server.boundPort('CLIENT'), internal: server.boundPort('INTERNAL') };
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
    sockets.push(s);
  });
}

const closed = (s: net.Socket, ms = 5000) =>
  new Promise<boolean>((resolve) => {
    if (s.destroyed) return resolve(true);
    const t = setTimeout(() => resolve(false), ms);
    s.once('close', () => {
      clearTimeout(t);
      resolve(true);
    });
  });

const frameOf = (apiKey: number, body = 8) => {
  const f = Buffer.alloc(4 + body);
  f.writeInt32BE(body);
  f.writeInt16BE(apiKey, 4);
  return f;
};

describe('socket server limits', () => {
  it('max.connections closes connections over the limit (the inter-broker listener is not counted); each hit is counted', async () => {
    const { server, port, internal } = await start({ maxConnections: 3 });
    const ok = [await connect(port), await connect(port), await connect(port)];
    const extra = await connect(port);
    expect(await closed(extra)).toBe(true);
    const broker = await connect(internal);
    expect(await closed(broker, 300)).toBe(false);
    for (const s of ok) expect(s.destroyed).toBe(false);
    expect(server.limitHits().get('max.connections')).toBe(1);
    ok[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await connect(port);
    expect(await closed(again, 300)).toBe(false);
  });

  it('max.connections.per.ip and its overrides', async () => {
    const { server, port } = await start({ maxConnectionsPerIp: 1, maxConnectionsPerIpOverrides: new Map([['127.0.0.1', 2]]) });
    const a = await connect(port);
    const b = await connect(port);
    const c = await connect(port);
    expect(await closed(c)).toBe(true);
    expect(a.destroyed || b.destroyed).toBe(false);
    expect(server.limitHits().get('max.connections.per.ip')).toBe(1);
  });

  it('connections.max.idle.ms closes a silent connection; traffic keeps one open', async () => {
    const { server, port } = await start({ connectionsMaxIdleMs: 300 });
    const idle = await connect(port);
    const busy = await connect(port);
    busy.on('data', () => {});
    const timer = setInterval(() => busy.write(frameOf(18)), 100);
    try {
      expect(await closed(idle, 3000)).toBe(true);
      expect(busy.destroyed).toBe(false);
    } finally {
      clearInterval(timer);
    }
    expect(server.limitHits().get('connections.max.idle.ms')).toBeGreaterThanOrEqual(1);
  });

  it('queued.max.requests: at the limit connections wait, and go on as requests finish', async () => {
    const release: (() => void)[] = [];
    const slow: FrameHandler = (frame) => new Promise((resolve) => release.push(() => resolve(echo(frame, null as never) as Buffer[])));
    const { server, port } = await start({ queuedMaxRequests: 2 }, slow);
    const a = await connect(port);
    const b = await connect(port);
    let answers = 0;
    for (const s of [a, b]) s.on('data', () => answers++);
    a.write(Buffer.concat([frameOf(18), frameOf(18)]));
    b.write(frameOf(18));
    await new Promise((r) => setTimeout(r, 200));
    expect(server.queuedRequests).toBe(2);
    expect(release).toHaveLength(2);
    release.shift()!();
    await new Promise((r) => setTimeout(r, 100));
    expect(release).toHaveLength(2); // the waiting request got the freed place
    while (release.length > 0) release.shift()!();
    await new Promise((r) => setTimeout(r, 100));
    expect(server.queuedRequests).toBe(0);
    expect(answers).toBeGreaterThanOrEqual(2);
    expect(server.limitHits().get('queued.max.requests')).toBeGreaterThanOrEqual(1);
  });

  it('a connection that does not read its responses is muted once they exceed the unsent bound; pipelined fetches go one at a time', async () => {
    let handled = 0;
    const big: FrameHandler = () => {
      handled++;
      const body = Buffer.alloc(4 * 1024 * 1024);
      const size = Buffer.alloc(4);
      size.writeInt32BE(body.length);
      return Promise.resolve([size, body]);
    };
    const { server, port } = await start({ maxUnsentBytes: 64 * 1024 }, big);
    const s = await connect(port);
    s.pause();
    s.write(Buffer.concat(Array.from({ length: 40 }, () => frameOf(1))));
    await new Promise((r) => setTimeout(r, 500));
    // One 4 MiB response is unsent: the rest wait unread (40 would be 160 MiB).
    expect(handled).toBeLessThanOrEqual(2);
    expect(server.limitHits().get('connection.max.unsent.bytes')).toBe(1);
    // Reading lets the others through, in order.
    let got = 0;
    s.on('data', (d: Buffer) => (got += d.length));
    s.resume();
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`only ${got} bytes`)), 20_000);
      const check = setInterval(() => {
        if (got >= 40 * (4 + 4 * 1024 * 1024)) {
          clearTimeout(t);
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    expect(handled).toBe(40);
  }, 30_000);
});
