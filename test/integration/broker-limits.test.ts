import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { encodeRequestFrame, Fetch, Metadata } from '@gregor/protocol';
import { kcat } from '../support/kcat.js';
import { BrokerProcess } from '../support/broker-process.js';
import { removeDir, startZooKeeper, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Resident set of a process in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** A small deterministic PRNG (mulberry32): the abuse is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Issue 12's abuse tests against a broker process (its RSS read from /proc): thousands of idle
 * connections, a client that fetches 100 MB and never reads its socket, frames announcing 2 GB. After
 * each the broker's RSS stays bounded (printed) and another client is still served.
 */
describe('broker limits under abuse (process broker)', () => {
  let zk: TestZooKeeper;
  let broker: BrokerProcess;
  let port = 0;
  const dir = mkdtempSync(join(tmpdir(), 'gregor-limits-'));
  const TOPIC = 'bulk';
  const note = (m: string) => console.log(`[broker-limits] ${m}`);

  beforeAll(async () => {
    zk = await startZooKeeper();
    const [client, internal] = await freePorts(2);
    port = client!;
    broker = new BrokerProcess({
      brokerId: 1,
      port: client!,
      dir,
      zookeeperConnect: zk.connectString,
      props: {
        listeners: `PLAINTEXT://127.0.0.1:${client},INTERNAL://127.0.0.1:${internal}`,
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT',
        'inter.broker.listener.name': 'INTERNAL',
        'num.partitions': '1',
        'fetch.max.bytes': String(8 * 1024 * 1024),
        'connection.max.unsent.bytes': String(1024 * 1024),
        'connections.max.idle.ms': '600000',
      },
    });
    await broker.start();
  }, 120_000);

  afterAll(async () => {
    await broker?.stop().catch(() => broker.kill());
    await zk?.stop();
    removeDir(dir);
  });

  async function served(): Promise<void> {
    const r = await kcat(['-b', `127.0.0.1:${port}`, '-L', '-J', '-m', '10'], undefined, 30_000);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.toString()).brokers).toHaveLength(1);
  }

  it('thousands of idle connections: each costs little, other clients are served, and they all go away', async () => {
    const before = rssMiB(broker.pid!);
    // The test process needs one fd per connection, as does the broker: stay under both limits (ulimit -n).
    const target = 10_000;
    const sockets: net.Socket[] = [];
    let refused = 0;
    for (let i = 0; i < target; i += 500) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(500, target - i) }, () =>
          new Promise<net.Socket | null>((resolve) => {
            const s = net.connect({ host: '127.0.0.1', port });
            s.once('connect', () => resolve(s));
            s.once('error', () => resolve(null));
          }),
        ),
      );
      for (const s of batch) if (s) sockets.push(s);
      else refused++;
    }
    await new Promise((r) => setTimeout(r, 1000));
    const open = sockets.filter((s) => !s.destroyed).length;
    const during = rssMiB(broker.pid!);
    note(`idle connections: ${open} open of ${target} attempted (${refused} refused); broker RSS ${before.toFixed(0)} MiB -> ${during.toFixed(0)} MiB (${(((during - before) * 1024) / Math.max(open, 1)).toFixed(1)} KiB each)`);
    expect(open).toBeGreaterThanOrEqual(9_000);
    expect(during - before).toBeLessThan(400);
    await served();
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 500));
    await served();
  }, 180_000);

  it('a reader that never reads while fetching 100 MB is muted: broker RSS stays bounded, others are served', async () => {
    // 100 MB in the topic, written with kcat (200 values of 512 KiB, seeded content).
    const rand = seeded(12);
    const value = Buffer.alloc(512 * 1024 - 1, 0);
    value.fill(120);
    for (let i = 0; i < value.length; i += 4096) value[i] = 97 + Math.floor(rand() * 26);
    const line = `${value.toString('latin1')}\n`;
    const p = await kcat(['-b', `127.0.0.1:${port}`, '-P', '-t', TOPIC, '-X', 'linger.ms=5'], line.repeat(200), 120_000);
    expect(p.code, p.stderr).toBe(0);
    const before = rssMiB(broker.pid!);

    // A raw client pipelines 50 fetches of the whole partition (max_bytes 200 MB each) and never reads.
    const conn = new Connection({ host: '127.0.0.1', port, clientId: 'never-reads' });
    await conn.connect();
    const md = await conn.send(Metadata, { topics: [{ name: TOPIC }] });
    expect(md.topics[0]!.errorCode).toBe(0);
    await conn.close();
    const sock = net.connect({ host: '127.0.0.1', port });
    await new Promise((r) => sock.once('connect', r));
    sock.pause();
    for (let i = 0; i < 50; i++) {
      const frame = encodeRequestFrame(Fetch.versions.get(11)!, { correlationId: i, clientId: 'never-reads' }, {
        replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 200 * 1024 * 1024, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 200 * 1024 * 1024 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      sock.write(Buffer.concat(frame));
    }
    await new Promise((r) => setTimeout(r, 3000));
    const during = rssMiB(broker.pid!);
    note(`never-reading fetcher (50 pipelined fetches of 100 MB): broker RSS ${before.toFixed(0)} MiB -> ${during.toFixed(0)} MiB`);
    // Without the limits: 50 responses of up to 100 MB each. With them: one response capped by fetch.max.bytes (8 MiB).
    expect(during - before).toBeLessThan(150);
    await served();
    sock.destroy();
  }, 180_000);

  it('frames announcing 2 GB close only their connection; no memory is taken for them', async () => {
    const before = rssMiB(broker.pid!);
    const rand = seeded(2024);
    const closed: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      const s = net.connect({ host: '127.0.0.1', port });
      closed.push(new Promise((resolve) => s.on('close', () => resolve())));
      s.on('error', () => {});
      s.once('connect', () => {
        const header = Buffer.alloc(4);
        header.writeInt32BE(2 ** 31 - 1 - Math.floor(rand() * 1000));
        s.write(Buffer.concat([header, Buffer.alloc(64, 7)]));
      });
    }
    await Promise.race([Promise.all(closed), new Promise((_, reject) => setTimeout(() => reject(new Error('connections not closed')), 30_000))]);
    // Frames just under socket.request.max.bytes (100 MiB) that trickle: memory follows bytes sent.
    const trickle: net.Socket[] = [];
    for (let i = 0; i < 200; i++) {
      const s = net.connect({ host: '127.0.0.1', port });
      s.on('error', () => {});
      const header = Buffer.alloc(4);
      header.writeInt32BE(100 * 1024 * 1024 - 1);
      s.once('connect', () => s.write(Buffer.concat([header, Buffer.alloc(1024, 1)])));
      trickle.push(s);
    }
    await new Promise((r) => setTimeout(r, 2000));
    const during = rssMiB(broker.pid!);
    note(`200 frames announcing 2 GB (closed) + 200 announcing 100 MiB with 1 KiB sent: broker RSS ${before.toFixed(0)} MiB -> ${during.toFixed(0)} MiB`);
    expect(during - before).toBeLessThan(100);
    await served();
    for (const s of trickle) s.destroy();
  }, 120_000);
});
