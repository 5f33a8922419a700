#!/usr/bin/env node
// Broker memory under many connections (issue 12): one broker process, CONNECTIONS client connections (each a
// gregor Connection: TCP connect plus the ApiVersions handshake), the broker's RSS from /proc/<pid>/status
//  1. before any client connects,
//  2. with every connection open and idle (settled SETTLE_MS),
//  3. while every connection produces: ROUNDS rounds in which each connection sends one Produce of RECORDS
//     records of 100 bytes (acks=1, all connections' requests in flight together); the highest RSS sampled
//     every 100 ms,
//  4. after every connection closed (settled SETTLE_MS).
// Also the broker's open file descriptors (/proc/<pid>/fd) and its peak RSS (VmHWM).
//
//   npm run build && node bench/connections-rss.mjs [--json <file>]   env: CONNECTIONS=1000 ROUNDS=20 RECORDS=10 PARTITIONS=10 SETTLE_MS=3000
import { readdirSync } from 'node:fs';
import { Admin, Connection, KafkaClient } from '@gregor/client';
import { encodeRecordBatch, Produce } from '@gregor/protocol';
import { createTopicRetrying, fmt, nowS, procMemoryMiB, sleep, startBench } from './lib/bench.mjs';

const TOPIC = 'connections';
const b = await startBench('connections-rss', { env: { CONNECTIONS: 1000, ROUNDS: 20, RECORDS: 10, PARTITIONS: 10, SETTLE_MS: 3000 }, params: { recordBytes: 100 } });
const { CONNECTIONS, ROUNDS, RECORDS, PARTITIONS, SETTLE_MS } = b.params;
process.env.LOG_LEVEL ??= 'warn';

const { broker, bootstrap } = await b.singleBroker();
const client = new KafkaClient({ brokers: bootstrap });
await createTopicRetrying(new Admin(client), TOPIC, PARTITIONS);
await client.close();

const pid = broker.pid;
const fds = () => readdirSync(`/proc/${pid}/fd`).length;
const snapshot = (step) => ({ step, ...procMemoryMiB(pid), fds: fds() });
const steps = [];
await sleep(SETTLE_MS);
steps.push(snapshot('no client connections'));

const conns = Array.from({ length: CONNECTIONS }, () => new Connection({ host: broker.host, port: broker.port, clientId: 'rss-bench', requestTimeoutMs: 60_000 }));
b.onCleanup(() => Promise.all(conns.map((c) => c.close().catch(() => {}))));
for (let i = 0; i < conns.length; i += 100) await Promise.all(conns.slice(i, i + 100).map((c) => c.connect()));
await sleep(SETTLE_MS);
steps.push(snapshot(`${fmt(CONNECTIONS)} idle connections`));

// Produce traffic on every connection, the highest RSS while it runs.
const now = Date.now();
const batch = encodeRecordBatch({ baseOffset: 0, compression: 0, firstTimestamp: now, records: Array.from({ length: RECORDS }, () => ({ key: null, value: Buffer.alloc(100, 0x78), headers: [], timestamp: now })) });
let maxRss = 0;
const sampler = setInterval(() => (maxRss = Math.max(maxRss, procMemoryMiB(pid)?.rss ?? 0)), 100);
const t0 = nowS();
for (let round = 0; round < ROUNDS; round++) {
  await Promise.all(conns.map(async (c, i) => {
    const res = await c.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: TOPIC, partitionData: [{ index: i % PARTITIONS, records: batch }] }] });
    const code = res.responses[0].partitionResponses[0].errorCode;
    if (code !== 0) throw new Error(`produce on connection ${i}: error ${code}`);
  }));
}
const produceSecs = nowS() - t0;
clearInterval(sampler);
steps.push({ ...snapshot(`${fmt(CONNECTIONS)} connections producing`), rss: maxRss });
await Promise.all(conns.map((c) => c.close()));
await sleep(SETTLE_MS);
steps.push(snapshot('all connections closed'));

const [base, idle, active] = steps;
const results = {
  steps,
  perIdleConnectionKiB: ((idle.rss - base.rss) * 1024) / CONNECTIONS,
  producingOverIdleMiB: active.rss - idle.rss,
  produceRequestsPerSec: (CONNECTIONS * ROUNDS) / produceSecs,
  produceRecordsPerSec: (CONNECTIONS * ROUNDS * RECORDS) / produceSecs,
};
console.log(`broker RSS under ${fmt(CONNECTIONS)} connections (gregor Connection each; produce: ${ROUNDS} rounds of one ${RECORDS}-record Produce per connection, acks=1)`);
console.log('| step | RSS MiB | peak RSS MiB | open fds |');
console.log('|---|---|---|---|');
for (const s of steps) console.log(`| ${s.step} | ${s.rss} | ${s.peak} | ${s.fds} |`);
console.log(`${results.perIdleConnectionKiB.toFixed(1)} KiB per idle connection; producing adds ${results.producingOverIdleMiB.toFixed(1)} MiB; ${fmt(results.produceRequestsPerSec)} Produce requests/s (${fmt(results.produceRecordsPerSec)} records/s)`);
await b.finish(results, {
  charts: [{ id: 'connections-rss', title: `Broker RSS with ${fmt(CONNECTIONS)} client connections`, unit: 'MiB', bars: steps.map((s) => ({ label: s.step, value: s.rss })) }],
});
