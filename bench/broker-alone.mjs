#!/usr/bin/env node
// The broker alone (issue 14): how many records/s one broker takes when nothing but its answers limits the
// client. Captures real Produce requests once — kcat (librdkafka) producing CAPTURE_N records of 100 bytes with
// acks=1 in ~1 MB batches through a recording TCP proxy (the broker advertises the proxy's port, so every request
// passes it) — then replays those request frames over CONNECTIONS loopback sockets straight at the broker, with
// INFLIGHT requests pipelined per socket, for SECONDS. Every response is decoded and must carry error 0.
// The same replay against a sink (a process that answers each frame with a canned response without reading it)
// is the replay client's own ceiling in the same run; against a writing sink (the same, but it first writes every
// request's bytes to a file, rolled and deleted like the broker's segments) it is the ceiling of a broker that did
// nothing but put the bytes in the page cache, which on a VM can cost more than everything else the broker does.
// Reports records/s, MB/s of requests, and the broker's CPU-seconds per 1M records from /proc.
//
//   npm run build && node bench/broker-alone.mjs [--json <file>]
//   env: CAPTURE_N=300000 SECONDS=10 CONNECTIONS=4 INFLIGHT=4 PARTITIONS=1 ROUNDS=3
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import { Admin, KafkaClient } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { decodeRequestHeader, decodeResponseHeader, Produce, Reader } from '@gregor/protocol';
import { createTopicRetrying, fmt, fmtRuns, kcatProduceArgs, linesFile, median, nowS, run, startBench } from './lib/bench.mjs';
import { frameSplitter, recordingProxy } from './lib/proxy.mjs';

const TOPIC = 'replay';
const b = await startBench('broker-alone', { env: { CAPTURE_N: 300_000, SECONDS: 10, CONNECTIONS: 4, INFLIGHT: 4, PARTITIONS: 1, ROUNDS: 3 }, params: { recordBytes: 100, acks: 1 } });
const { CAPTURE_N, SECONDS, CONNECTIONS, INFLIGHT, PARTITIONS, ROUNDS } = b.params;
process.env.LOG_LEVEL ??= 'warn';

// --- the broker, advertising a recording proxy ------------------------------------------------------
const [proxyPort, brokerPort, internalPort] = await freePorts(3);
const zk = await b.zookeeper();
// Clients learn the proxy's address; the controller's own requests use the INTERNAL listener, past the proxy.
const broker = await b.startBroker({ zookeeperConnect: zk.connectString, port: brokerPort, props: {
  listeners: `PLAINTEXT://127.0.0.1:${brokerPort},INTERNAL://127.0.0.1:${internalPort}`,
  'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxyPort},INTERNAL://127.0.0.1:${internalPort}`,
  'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT',
  'inter.broker.listener.name': 'INTERNAL',
  // Bounded disk and page cache: the replay appends for SECONDS per round; old segments go within a second or two.
  // (With Kafka's 60 s delete delay, ~15 GB of deleted segments stayed in the page cache of this 24 GB VM, and every
  // write went to a never-touched page, which costs the writer 2-3 times a recycled one here; the writing sink below
  // deletes with the same delay.)
  'log.segment.bytes': String(256 << 20), 'log.retention.bytes': String(512 << 20), 'log.retention.check.interval.ms': '1000',
  'log.segment.delete.delay.ms': '1000',
} });
const captured = [];
const proxy = await recordingProxy(proxyPort, brokerPort, {
  onRequest: (frame) => {
    if (frame.readInt16BE(4) === Produce.apiKey) captured.push(Buffer.from(frame));
  },
});
b.onCleanup(proxy.close);

const client = new KafkaClient({ brokers: broker.bootstrapServer });
await createTopicRetrying(new Admin(client), TOPIC, PARTITIONS);
await client.close();

// --- capture -------------------------------------------------------------------------------------
const input = await linesFile(join(b.work, 'lines.txt'), CAPTURE_N);
await run('kcat', kcatProduceArgs(`127.0.0.1:${proxyPort}`, TOPIC, input, 'acks=1', 'linger.ms=100', 'batch.num.messages=1000000', 'batch.size=1000000', 'message.max.bytes=1000000'));
await proxy.close();

/** Records in one Produce request frame: the recordCount (offset 57) of every v2 batch in it. */
function recordsIn(frame) {
  const r = new Reader(frame, 4);
  const header = decodeRequestHeader(r);
  const codec = Produce.versions.get(header.apiVersion);
  r.flexible = codec.flexible;
  if (codec.flexible) r.skipTaggedFields();
  const req = codec.decodeRequest(r);
  let n = 0;
  for (const t of req.topicData) {
    for (const p of t.partitionData) {
      for (let at = 0; p.records && at + 61 <= p.records.length; at += 12 + p.records.readInt32BE(at + 8)) n += p.records.readInt32BE(at + 57);
    }
  }
  return { n, version: header.apiVersion, acks: req.acks };
}
const frames = captured.map((frame) => ({ frame, ...recordsIn(frame) }));
const capturedRecords = frames.reduce((s, f) => s + f.n, 0);
if (capturedRecords !== CAPTURE_N) throw new Error(`captured ${capturedRecords} records in ${frames.length} Produce requests, expected ${CAPTURE_N}`);
const meanFrameBytes = frames.reduce((s, f) => s + f.frame.length, 0) / frames.length;
console.log(`captured ${frames.length} Produce requests (v${frames[0].version}, acks=${frames[0].acks}) of ${fmt(meanFrameBytes)} bytes and ${fmt(CAPTURE_N / frames.length)} records on average`);

// --- replay --------------------------------------------------------------------------------------
/**
 * Sends the captured frames round-robin over CONNECTIONS sockets to `port`, INFLIGHT per socket, for SECONDS;
 * `check` decodes every response (error 0 everywhere). Returns records/s and bytes/s acknowledged.
 */
async function replay(port, check) {
  let next = 0;
  let records = 0;
  let bytes = 0;
  let correlation = 1;
  const deadline = nowS() + SECONDS;
  const t0 = nowS();
  await Promise.all(Array.from({ length: CONNECTIONS }, () => new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    const waiting = new Map(); // correlation id -> frame info
    const send = () => {
      const f = frames[next++ % frames.length];
      // The first 12 bytes (size, api key, version, correlation id) anew; the body is written as captured, uncopied.
      const head = Buffer.from(f.frame.subarray(0, 12));
      const id = correlation++;
      head.writeInt32BE(id, 8);
      waiting.set(id, f);
      socket.cork();
      socket.write(head);
      socket.write(f.frame.subarray(12));
      socket.uncork();
    };
    socket.on('data', frameSplitter((frame) => {
      const r = new Reader(frame, 4);
      const id = decodeResponseHeader(r, false);
      const f = waiting.get(id);
      if (!f) return reject(new Error(`response to unknown correlation id ${id}`));
      waiting.delete(id);
      if (check) {
        const res = Produce.versions.get(f.version).decodeResponse(r);
        for (const t of res.responses) for (const p of t.partitionResponses) if (p.errorCode !== 0) return reject(new Error(`partition ${p.index}: error ${p.errorCode}`));
      }
      records += f.n;
      bytes += f.frame.length;
      if (nowS() < deadline) send();
      else if (waiting.size === 0) socket.end(resolve);
    }));
    socket.on('error', reject);
    socket.on('connect', () => {
      for (let i = 0; i < INFLIGHT; i++) send();
    });
  })));
  const secs = nowS() - t0;
  return { recordsPerSec: records / secs, mbPerSec: bytes / 1e6 / secs, records };
}

// A sink: another process that answers every request frame with the same small Produce response (v of the capture).
const [sinkPort] = await freePorts(1);
const sinkSource = `
const net = require('node:net');
const fs = require('node:fs');
// SINK_DIR: write every request's bytes to files there, 256 MB each, keeping the last two and deleting older ones a
// second later (the broker's retention and delete delay above).
const dir = process.env.SINK_DIR;
let fd;
let fileBytes = 0;
const files = [];
const roll = () => {
  if (fd !== undefined) fs.closeSync(fd);
  files.push(dir + '/' + files.length + '.log');
  fd = fs.openSync(files[files.length - 1], 'w');
  fileBytes = 0;
  if (files.length > 2) {
    const old = files[files.length - 3];
    setTimeout(() => fs.rmSync(old, { force: true }), 1000);
  }
};
if (dir) roll();
const body = Buffer.from(${JSON.stringify([...sinkResponseBody(frames[0].version)])});
net.createServer((s) => {
  // Keeps only each frame's first 12 bytes (for the correlation id) and skips the rest as it streams by.
  const head = Buffer.alloc(12);
  let have = 0;
  let skip = 0;
  s.on('data', (d) => {
    let at = 0;
    while (at < d.length) {
      if (skip > 0) {
        const n = Math.min(skip, d.length - at);
        if (fd !== undefined) {
          fs.writeSync(fd, d, at, n);
          fileBytes += n;
          if (fileBytes >= 256 << 20) roll();
        }
        skip -= n;
        at += n;
        continue;
      }
      const n = Math.min(12 - have, d.length - at);
      d.copy(head, have, at, at + n);
      have += n;
      at += n;
      if (have < 12) break;
      have = 0;
      skip = head.readInt32BE(0) - 8;
      const out = Buffer.alloc(8 + body.length);
      out.writeInt32BE(4 + body.length, 0);
      head.copy(out, 4, 8, 12);
      body.copy(out, 8);
      s.write(out);
    }
  });
  s.on('error', () => {});
}).listen(Number(process.env.SINK_PORT), '127.0.0.1', () => console.log('ready'));
`;
/** A Produce response body with no topics and throttle 0 (valid in every version). */
function sinkResponseBody(version) {
  const buf = Buffer.alloc(version >= 1 ? 8 : 4);
  buf.writeInt32BE(0, 0); // responses: empty array
  return buf;
}
/** Starts a sink process; `writeDir` makes it a writing sink. */
const startSink = (port, writeDir) => b.nodeServer(['-e', sinkSource], { SINK_PORT: String(port), ...(writeDir ? { SINK_DIR: writeDir } : {}) });
const [writingSinkPort] = await freePorts(1);
const writeDir = join(b.work, 'writing-sink');
mkdirSync(writeDir);
const sink = await startSink(sinkPort);
const writingSink = await startSink(writingSinkPort, writeDir);

const rows = { broker: [], sink: [], writingSink: [], brokerCpuSecondsPerMillion: [] };
for (let round = 0; round < ROUNDS; round++) {
  const cpu0 = b.brokerCpuSeconds();
  const r = await replay(brokerPort, true);
  b.sample();
  rows.broker.push(r.recordsPerSec);
  rows.brokerCpuSecondsPerMillion.push(((b.brokerCpuSeconds() - cpu0) * 1e6) / r.records);
  rows.sink.push((await replay(sinkPort, false)).recordsPerSec);
  rows.writingSink.push((await replay(writingSinkPort, false)).recordsPerSec);
}
sink.kill('SIGKILL');
writingSink.kill('SIGKILL');

const results = {
  frames: frames.length,
  meanRequestBytes: meanFrameBytes,
  recordsPerRequest: CAPTURE_N / frames.length,
  produceVersion: frames[0].version,
  brokerRecordsPerSec: median(rows.broker),
  sinkRecordsPerSec: median(rows.sink),
  writingSinkRecordsPerSec: median(rows.writingSink),
  brokerCpuSecondsPerMillion: median(rows.brokerCpuSecondsPerMillion),
  runs: rows,
};
console.log(`broker alone: ${frames.length} captured Produce requests (~${fmt(meanFrameBytes / 1000)} kB, ${fmt(results.recordsPerRequest)} records each) replayed for ${SECONDS} s over ${CONNECTIONS} sockets x ${INFLIGHT} in flight, ${ROUNDS} rounds`);
console.log(`  gregor broker   ${fmtRuns(rows.broker)}  (${(results.brokerRecordsPerSec * meanFrameBytes / results.recordsPerRequest / 1e6).toFixed(0)} MB/s of requests; target 3,000,000)`);
console.log(`  sink (ceiling)  ${fmtRuns(rows.sink)}`);
console.log(`  writing sink    ${fmtRuns(rows.writingSink)}  (the bytes written to files and nothing else: broker / writing sink ${(results.brokerRecordsPerSec / results.writingSinkRecordsPerSec).toFixed(2)})`);
console.log(`  broker CPU      ${results.brokerCpuSecondsPerMillion.toFixed(2)} s per 1M records [${rows.brokerCpuSecondsPerMillion.map((x) => x.toFixed(2)).join(', ')}]`);
await b.finish(results, {
  charts: [{ id: 'broker-alone', title: `Captured ~1 MB Produce requests (acks=1) replayed over loopback, ${CONNECTIONS}×${INFLIGHT} in flight`, unit: 'records/s', bars: [
    { label: 'gregor broker', value: results.brokerRecordsPerSec, runs: rows.broker },
    { label: 'sink (replay ceiling)', value: results.sinkRecordsPerSec, runs: rows.sink },
    { label: 'writing sink (file-write ceiling)', value: results.writingSinkRecordsPerSec, runs: rows.writingSink },
  ] }],
});
process.exit(0);
