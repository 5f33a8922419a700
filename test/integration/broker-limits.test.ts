import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@gregor/common';
import { Admin, Connection, KafkaClient } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { CompressionType, decodeRecordSet, encodeRecordBatch, encodeRequestFrame, Fetch, ListOffsets, Metadata, Produce } from '@gregor/protocol';
import { bombBatches, fakeCountBatch } from '../support/decompression-bombs.js';
import { kcat } from '../support/kcat.js';
import { BrokerProcess } from '../support/broker-process.js';
import { removeDir, startZooKeeper, waitFor, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Resident set of a process in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** Peak resident set of a process in MiB since `resetPeakRss` (Linux VmHWM). */
function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** Resets a process's peak RSS to its current RSS (clear_refs 5). */
function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
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
 * connections, a client that fetches 100 MB and never reads its socket, frames announcing 2 GB,
 * decompression bombs and batches claiming 2^31-1 records. After each the broker's RSS stays bounded
 * (printed) and another client is still served.
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
  it('decompression bombs (gzip, snappy, lz4, zstd) and batches claiming 2^31-1 records are refused, nothing appended; RSS bounded; another client served meanwhile', async () => {
    const BOMBS = 'bombs';
    const HEALTHY = 'healthy';
    const MiB = 1024 * 1024;
    // 1 GiB each (snappy, whose best ratio is about 21:1, 128 MiB): the broker's cap is max(message.max.bytes, 50 MiB).
    // The topic takes batches of 8 MiB compressed, so even the snappy bomb reaches record validation.
    const bombs = bombBatches(1024 * MiB, 128 * MiB, Date.now());
    note(`bombs: ${[...bombs].map(([name, b]) => `${name} ${(b.length / 1024).toFixed(0)} KiB`).join(', ')}`);
    const client = new KafkaClient({ brokers: `127.0.0.1:${port}` });
    try {
      const created = await new Admin(client).createTopics([
        { name: BOMBS, numPartitions: 1, replicationFactor: 1, configs: { 'max.message.bytes': String(8 * MiB) } },
        { name: HEALTHY, numPartitions: 1, replicationFactor: 1 },
      ]);
      expect(created.map((c) => c.errorCode)).toEqual([0, 0]);
    } finally {
      await client.close();
    }
    const attacker = new Connection({ host: '127.0.0.1', port, clientId: 'bomber', requestTimeoutMs: 60_000 });
    const other = new Connection({ host: '127.0.0.1', port, clientId: 'bystander' });
    const produce = (conn: Connection, topic: string, records: Buffer) =>
      conn.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] }).then((r) => r!.responses[0]!.partitionResponses[0]!);
    const logEndOffset = async (topic: string) => {
      const r = await other.send(ListOffsets, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] });
      const p = r!.topics[0]!.partitions[0]!;
      return p.errorCode === 0 ? Number(p.offset) : null;
    };
    const segments = () => readdirSync(join(broker.logDir, `${BOMBS}-0`)).filter((f) => f.endsWith('.log')).length;
    // The bystander's produce-then-fetch round trip on another topic.
    const roundTrip = async (i: number) => {
      const now = Date.now();
      const value = `ping-${i}`;
      const batch = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, records: [{ key: null, value: Buffer.from(value), headers: [], timestamp: now }] });
      const p = await produce(other, HEALTHY, batch);
      expect(p.errorCode).toBe(0);
      const f = await other.send(Fetch, {
        replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: MiB, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: HEALTHY, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: p.baseOffset, logStartOffset: -1, partitionMaxBytes: MiB }] }],
        forgottenTopicsData: [], rackId: '',
      });
      const part = f.responses[0]!.partitionResponses[0]!;
      expect(part.errorCode).toBe(0);
      expect(decodeRecordSet(part.recordSet!)[0]!.records[0]!.value!.toString()).toBe(value);
    };
    try {
      await attacker.connect();
      await other.connect();
      await waitFor(async () => (await logEndOffset(BOMBS)) === 0 && (await logEndOffset(HEALTHY)) === 0, 30_000, 'both partitions led');
      await roundTrip(-1);
      const segmentsBefore = segments();
      const before = rssMiB(broker.pid!);
      resetPeakRss(broker.pid!);

      let stop = false;
      const latencies: number[] = [];
      const bystander = (async () => {
        for (let i = 0; !stop && i < 100_000; i++) {
          const t = performance.now();
          await roundTrip(i);
          latencies.push(performance.now() - t);
        }
      })();
      const codes = new Map<string, number[]>();
      try {
        // Each bomb three times: memory taken for one must be given back before the next.
        for (let round = 0; round < 3; round++) {
          for (const [name, batch] of bombs) {
            const p = await produce(attacker, BOMBS, batch);
            codes.set(name, [...(codes.get(name) ?? []), p.errorCode]);
          }
        }
        // The offsets attack: 200 plain and 50 gzip batches whose header claims 2^31-1 records.
        for (let i = 0; i < 250; i++) {
          const p = await produce(attacker, BOMBS, fakeCountBatch(i < 200 ? CompressionType.none : CompressionType.gzip));
          codes.set('fake count', [...(codes.get('fake count') ?? []), p.errorCode]);
        }
      } finally {
        stop = true;
        await bystander;
      }
      const peak = peakRssMiB(broker.pid!);
      const after = rssMiB(broker.pid!);
      latencies.sort((a, b) => a - b);
      note(`refusals: ${[...codes].map(([name, c]) => `${name} ${[...new Set(c)].join('/')}`).join(', ')}`);
      note(`decompression bombs (3 x 5, 1 GiB inflated; snappy 128 MiB) + 250 fake-count batches: broker RSS ${before.toFixed(0)} MiB -> peak ${peak.toFixed(0)} MiB -> ${after.toFixed(0)} MiB`);
      note(`bystander round trips meanwhile: ${latencies.length}, median ${latencies[latencies.length >> 1]!.toFixed(1)} ms, max ${latencies[latencies.length - 1]!.toFixed(1)} ms`);

      for (const [name, c] of codes) {
        if (name === 'fake count') expect(new Set(c), name).toEqual(new Set([ErrorCode.INVALID_RECORD]));
        else for (const code of c) expect(code, name).toBe(ErrorCode.CORRUPT_MESSAGE);
      }
      // Refused at the cap, while inflating: the broker's log line names the codec and the limit.
      const refusals = readFileSync(broker.logFile, 'utf8').split('\n').filter((l) => l.includes('produce refused by record validation'));
      for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
        expect(refusals.filter((l) => l.includes(`${codec} records cannot be decompressed`) && l.includes('52428800-byte decompression limit')).length, codec).toBeGreaterThanOrEqual(3);
      }
      expect(codes.get('fake count')).toHaveLength(250);
      // Nothing appended, no segment rolled; the attacker's connection is still open and served.
      expect(await logEndOffset(BOMBS)).toBe(0);
      expect(segments()).toBe(segmentsBefore);
      const ok = await produce(attacker, BOMBS, encodeRecordBatch({ baseOffset: 0, compression: CompressionType.zstd, firstTimestamp: Date.now(), records: [{ key: null, value: Buffer.from('fine'), headers: [], timestamp: Date.now() }] }));
      expect(ok).toMatchObject({ errorCode: 0, baseOffset: 0 });
      // Without a cap one 1 GiB bomb alone would take 1 GiB; the cap stops each at 50 MiB inflated (the peak
      // seen is a few times that: inflated chunks and garbage of earlier bombs not yet collected).
      expect(peak - before).toBeLessThan(600);
      expect(latencies.length).toBeGreaterThanOrEqual(5);
    } finally {
      await attacker.close();
      await other.close();
    }
    await served();
    // And a real client's round trip after it all.
    const p = await kcat(['-b', `127.0.0.1:${port}`, '-P', '-t', HEALTHY], 'after-the-bombs\n');
    expect(p.code, p.stderr).toBe(0);
    const c = await kcat(['-b', `127.0.0.1:${port}`, '-C', '-t', HEALTHY, '-o', '-1', '-e', '-q']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString()).toBe('after-the-bombs\n');
  }, 180_000);
});
