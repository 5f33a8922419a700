#!/usr/bin/env node
// Fetch sessions (KIP-227, issue 9): what one Fetch costs the broker when a consumer reads 1,000 partitions of
// one broker, sessionless (session 0, epoch -1: every partition in every request and every response) against an
// incremental session (gregor's FetchSessionHandler: only changed partitions each way), alternating in the same
// run. Broker CPU = utime+stime of the broker process from /proc/<pid>/stat over the measured fetches; request
// and response bytes = the broker's own gregor_request_bytes_total / gregor_response_bytes_total for Fetch.
// Two cases, max_wait 0 (no long-poll, so every fetch is answered at once):
//   idle   - every partition caught up: a sessionless answer lists 1,000 empty partitions, an incremental one none;
//   active - HOT partitions (default 10) each return one new batch per fetch, the others stay caught up.
//
//   npm run build && node bench/fetch-sessions.mjs [--json <file>] [--full]    env: PARTITIONS=1000 FETCHES=300 (--full: 1000) ROUNDS=3 HOT=10
import { Admin, Connection, FetchSessionHandler, KafkaClient, Producer } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { Fetch } from '@gregor/protocol';
import { median, procCpuSeconds, startBench } from './lib/bench.mjs';

const WARMUP = 50;
const TOPIC = 'fetch-sessions-bench';
const b = await startBench('fetch-sessions', { env: { PARTITIONS: 1000, FETCHES: [300, 1000], ROUNDS: 3, HOT: 10 }, params: { WARMUP } });
const { PARTITIONS, FETCHES, ROUNDS } = b.params;
const HOT = Math.min(b.params.HOT, PARTITIONS);
process.env.LOG_LEVEL ??= 'warn';
const cpuMs = (pid) => procCpuSeconds(pid) * 1000;

async function fetchBytes(httpPort) {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  const value = (name) => Number(text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('api="Fetch"'))?.split(' ').pop() ?? 0);
  return { request: value('gregor_request_bytes_total'), response: value('gregor_response_bytes_total') };
}

// Broker and topic
const [httpPort] = await freePorts(1);
const { broker } = await b.singleBroker({ 'http.port': String(httpPort) });
const port = broker.port;
const rows = [];
{
  const client = new KafkaClient({ brokers: `127.0.0.1:${port}` });
  const [created] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }]);
  if (created.errorCode !== 0) throw new Error(`create ${TOPIC}: ${created.errorMessage}`);
  for (let p = 0; p < PARTITIONS; p++) await client.leaderFor(TOPIC, p);
  // Every hot partition gets one single-record batch per fetch the active case makes in a phase.
  const batches = WARMUP + FETCHES;
  const producer = new Producer(client, { acks: 1 });
  const value = 'v'.repeat(100);
  for (let b = 0; b < batches; b++) {
    await producer.send({ topic: TOPIC, messages: Array.from({ length: HOT }, (_, p) => ({ value, partition: p })) });
  }
  await client.close();

  const conn = new Connection({ host: '127.0.0.1', port, requestTimeoutMs: 30_000 });
  await conn.connect();
  // partition_max_bytes fits one batch (and part of the next, which the client ignores).
  const probe = await conn.send(Fetch, fetchRequest(0, -1, [{ partition: 0, fetchOffset: 0 }], 1 << 20));
  const batchBytes = 12 + probe.responses[0].partitionResponses[0].recordSet.readInt32BE(8);
  const partitionMaxBytes = Math.floor(batchBytes * 1.5);

  function fetchRequest(sessionId, sessionEpoch, parts, maxBytes = partitionMaxBytes, forgotten = []) {
    return {
      replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 50 << 20, isolationLevel: 0, sessionId, sessionEpoch,
      topics: parts.length === 0 ? [] : [{ topic: TOPIC, partitions: parts.map((p) => ({ partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: maxBytes, currentLeaderEpoch: -1, logStartOffset: -1 })) }],
      forgottenTopicsData: forgotten.length === 0 ? [] : [{ topic: TOPIC, partitions: forgotten.map((p) => p.partition) }],
      rackId: '',
    };
  }

  /** One phase: WARMUP + FETCHES fetches in one mode; returns per-fetch figures of the measured ones. */
  async function phase(mode, active) {
    const positions = Array.from({ length: PARTITIONS }, (_, p) => (p < HOT ? (active ? 0 : batches) : 0));
    const session = new FetchSessionHandler(1, { enabled: mode === 'session' });
    let cpu0, bytes0, wall0, client0, answered = 0, records = 0;
    for (let i = 0; i < WARMUP + FETCHES; i++) {
      if (i === WARMUP) {
        bytes0 = await fetchBytes(httpPort);
        cpu0 = cpuMs(broker.pid);
        client0 = process.cpuUsage();
        wall0 = performance.now();
        answered = records = 0;
      }
      const req = session.build(positions.map((fetchOffset, partition) => ({ topic: TOPIC, partition, fetchOffset, logStartOffset: -1, partitionMaxBytes, currentLeaderEpoch: -1 })));
      const res = await conn.send(Fetch, fetchRequest(req.sessionId, req.epoch, req.toSend, partitionMaxBytes, req.toForget));
      if (!session.handleResponse(res)) throw new Error(`fetch session error ${res.errorCode}`);
      for (const t of res.responses) {
        for (const p of t.partitionResponses) {
          answered++;
          const rs = p.recordSet;
          if (p.errorCode !== 0) throw new Error(`partition ${p.partition}: error ${p.errorCode}`);
          if (rs && rs.length >= 61 && 12 + rs.readInt32BE(8) <= rs.length) {
            positions[p.partition] = Number(rs.readBigInt64BE(0)) + rs.readInt32BE(23) + 1;
            records++;
          }
        }
      }
    }
    const wallMs = performance.now() - wall0;
    const cpu = cpuMs(broker.pid) - cpu0;
    const clientCpu = process.cpuUsage(client0);
    const bytes = await fetchBytes(httpPort);
    if (session.sessionId !== 0) await conn.send(Fetch, fetchRequest(session.sessionId, -1, [])); // close it
    if (active && records !== FETCHES * HOT) throw new Error(`${mode}: read ${records} batches, expected ${FETCHES * HOT}`);
    return {
      case: active ? 'active' : 'idle',
      mode,
      brokerCpuUsPerFetch: (cpu * 1000) / FETCHES,
      clientCpuUsPerFetch: (clientCpu.user + clientCpu.system) / FETCHES,
      requestBytesPerFetch: (bytes.request - bytes0.request) / FETCHES,
      responseBytesPerFetch: (bytes.response - bytes0.response) / FETCHES,
      partitionsAnsweredPerFetch: answered / FETCHES,
      wallMsPerFetch: wallMs / FETCHES,
    };
  }

  for (const active of [false, true]) {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which mode goes first, so drift on a shared machine hits both.
      const modes = round % 2 === 0 ? ['sessionless', 'session'] : ['session', 'sessionless'];
      for (const mode of modes) rows.push(await phase(mode, active));
    }
  }
  await conn.close();
}
await b.close();

// Medians per case and mode
const summary = [];
for (const c of ['idle', 'active']) {
  for (const mode of ['sessionless', 'session']) {
    const rs = rows.filter((r) => r.case === c && r.mode === mode);
    const m = (k) => median(rs.map((r) => r[k]));
    summary.push({
      case: c,
      mode,
      brokerCpuUsPerFetch: Math.round(m('brokerCpuUsPerFetch')),
      brokerCpuUsRuns: rs.map((r) => Math.round(r.brokerCpuUsPerFetch)),
      clientCpuUsPerFetch: Math.round(m('clientCpuUsPerFetch')),
      requestBytesPerFetch: Math.round(m('requestBytesPerFetch')),
      responseBytesPerFetch: Math.round(m('responseBytesPerFetch')),
      partitionsAnsweredPerFetch: Math.round(m('partitionsAnsweredPerFetch') * 10) / 10,
      wallMsPerFetch: Math.round(m('wallMsPerFetch') * 100) / 100,
    });
  }
}
console.log(`Fetch sessions: one consumer, ${PARTITIONS} partitions on one broker, max_wait 0, ${FETCHES} measured fetches per phase, ${ROUNDS} rounds (medians; broker CPU per run in brackets)`);
console.log('case    mode         broker CPU/fetch            client CPU/fetch  request B/fetch  response B/fetch  partitions answered  wall ms/fetch');
for (const s of summary) {
  console.log(
    `${s.case.padEnd(7)} ${s.mode.padEnd(12)} ${`${s.brokerCpuUsPerFetch} µs [${s.brokerCpuUsRuns.join(', ')}]`.padEnd(27)} ${`${s.clientCpuUsPerFetch} µs`.padEnd(17)} ${String(s.requestBytesPerFetch).padEnd(16)} ${String(s.responseBytesPerFetch).padEnd(17)} ${String(s.partitionsAnsweredPerFetch).padEnd(20)} ${s.wallMsPerFetch}`,
  );
}
for (const c of ['idle', 'active']) {
  const [a, b] = ['sessionless', 'session'].map((mode) => summary.find((s) => s.case === c && s.mode === mode));
  console.log(`${c}: sessions cut broker CPU per fetch ${(a.brokerCpuUsPerFetch / b.brokerCpuUsPerFetch).toFixed(1)}x, request bytes ${(a.requestBytesPerFetch / b.requestBytesPerFetch).toFixed(0)}x, response bytes ${(a.responseBytesPerFetch / b.responseBytesPerFetch).toFixed(0)}x`);
}
const cell = (c, mode) => summary.find((s) => s.case === c && s.mode === mode);
await b.finish({ summary, rows }, {
  charts: [
    { id: 'fetch-sessions-cpu', title: `Broker CPU per Fetch of ${PARTITIONS} partitions (max_wait 0)`, unit: 'µs', bars: ['idle', 'active'].flatMap((c) => ['sessionless', 'session'].map((mode) => ({ label: `${c}, ${mode}`, value: cell(c, mode).brokerCpuUsPerFetch, runs: cell(c, mode).brokerCpuUsRuns }))) },
    { id: 'fetch-sessions-bytes', title: 'Fetch request + response bytes per fetch', unit: 'bytes', bars: ['idle', 'active'].flatMap((c) => ['sessionless', 'session'].map((mode) => ({ label: `${c}, ${mode}`, value: cell(c, mode).requestBytesPerFetch + cell(c, mode).responseBytesPerFetch }))) },
  ],
});
