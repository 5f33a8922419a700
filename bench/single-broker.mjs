#!/usr/bin/env node
// Single-broker throughput on this machine: kcat (librdkafka 2.0.2) producing N records of 100 bytes
// with acks=1 into one gregor broker, then consuming them, alternating with kcat against librdkafka's
// own mock broker (the client's ceiling) so the ratio is measured in the same run. Also: raw disk
// sequential write speed, the broker's peak RSS and CPU-seconds per million records, and optionally a CPU
// profile of the broker (PROFILE=1).
//
// kcat's consume ceiling, in the same rounds: before the measured consume (kcat straight to the broker, as
// always), an unmeasured consume of the same records goes through a recording proxy (the broker's RECORDED
// listener advertises the proxy's port, so all of kcat's connections pass it) that keeps every request and the
// response the broker gave it. Right after the measured consume (right before it in every other pair), a kcat
// run with the same arguments talks to bench/lib/replay-server.mjs on the proxy's port: a separate process that
// answers a request equal byte for byte (but for the correlation id) to a recorded one with the recorded
// response, correlation id rewritten. Fetch requests carry their fetch offsets, so a Fetch gets what the broker
// gave at those offsets; this holds because kcat's fetch offset for a partition depends only on the responses
// (the next offset after the last record received; a full local queue delays a fetch but does not change its
// offset), so the replayed run asks for the same offsets. With one partition every replayed request was
// recorded as is (the table shows answers sent as recorded/composed); with several, which partitions one Fetch
// includes depends on timing, so a Fetch not recorded as a whole is answered partition by partition, each with
// the broker's response at that partition's offset, encoded anew (Metadata likewise, from the recorded brokers
// and topics). An empty Fetch (at the end of the log) is held back for the request's max.wait.ms, as the broker
// did, since no server can answer it sooner with data that is not there. A request the recording cannot answer
// makes the replay server exit and the round fail. The ceiling run must print the offsets the gregor run
// printed. The ratio is per pair, gregor / ceiling; a round's is the median over its pairs, the result the median
// over rounds.
//
//   npm run build && node bench/single-broker.mjs [--json <file>] [--full]
//   env: N=200000 (--full: 1000000) ROUNDS=3 CONSUME_PAIRS=1 (--full: 3; gregor/replay consume pairs per round)
//        PARTITIONS=1 PROFILE=0 DISK_MB=256 (--full: 1024)
//        TOPIC_COMPRESSION=producer (the topics' compression.type; kcat sends uncompressed, so e.g. zstd makes the
//        leader recompress every batch)
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, KafkaClient } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { fmt, fmtRuns, kcatProduceArgs, linesFile, median, nowS, run, startBench } from './lib/bench.mjs';
import { recordingProxy } from './lib/proxy.mjs';

const PROFILE = process.env.PROFILE === '1';
const TOPIC_COMPRESSION = process.env.TOPIC_COMPRESSION ?? 'producer';
const b = await startBench('single-broker', { env: { N: [200_000, 1_000_000], ROUNDS: 3, CONSUME_PAIRS: [1, 3], PARTITIONS: 1, DISK_MB: [256, 1024] }, params: { recordBytes: 100, acks: 1, topicCompression: TOPIC_COMPRESSION } });
const { N, ROUNDS, CONSUME_PAIRS, PARTITIONS, DISK_MB } = b.params;
process.env.LOG_LEVEL ??= 'warn';

function diskWriteMBps(dir) {
  const MiB = 1 << 20;
  const f = join(dir, 'disk.bin');
  const buf = Buffer.alloc(MiB, 0x61);
  const fd = openSync(f, 'w');
  const t0 = nowS();
  for (let i = 0; i < DISK_MB; i++) writeSync(fd, buf);
  fsyncSync(fd);
  const secs = nowS() - t0;
  closeSync(fd);
  unlinkSync(f);
  return Math.round((DISK_MB * MiB) / 1e6 / secs);
}

const input = await linesFile(join(b.work, `lines-${N}.txt`), N); // 100-byte values, no key (as the peer benchmarks)
const produceArgs = (brokers, topic, ...extra) => kcatProduceArgs(brokers, topic, input, 'acks=1', ...extra);
const consumeArgs = (brokers, topic) => [
  '-C', '-b', brokers, '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%o\n',
  '-X', 'fetch.message.max.bytes=8388608', '-X', 'fetch.wait.max.ms=10',
];

const profDir = join(b.work, 'prof');
// PLAINTEXT for everything measured; RECORDED only behind the recording proxy, advertising the proxy's port.
const [brokerPort, recordedPort, proxyPort] = await freePorts(3);
const { bootstrap } = await b.singleBroker({
  'num.partitions': String(PARTITIONS),
  listeners: `PLAINTEXT://127.0.0.1:${brokerPort},RECORDED://127.0.0.1:${recordedPort}`,
  'advertised.listeners': `PLAINTEXT://127.0.0.1:${brokerPort},RECORDED://127.0.0.1:${proxyPort}`,
  'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,RECORDED:PLAINTEXT',
  'inter.broker.listener.name': 'PLAINTEXT',
}, { port: brokerPort, nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] });

/**
 * kcat consuming `topic` through the recording proxy; writes the recording replay-server.mjs reads to `file` and
 * returns what kcat printed and what was recorded. Every request is paired with its response by correlation id.
 */
async function recordConsume(topic, file) {
  const exchanges = [];
  const proxy = await recordingProxy(proxyPort, recordedPort, {
    onRequest: (frame, conn) => (conn.waiting ??= new Map()).set(frame.readInt32BE(8), Buffer.from(frame)),
    onResponse: (frame, conn) => {
      const id = frame.readInt32BE(4);
      exchanges.push({ request: conn.waiting.get(id), response: Buffer.from(frame) });
      conn.waiting.delete(id);
    },
  });
  let out;
  try {
    out = await run('kcat', consumeArgs(`127.0.0.1:${proxyPort}`, topic), { stdout: 'pipe', signal: AbortSignal.timeout(120_000) });
  } finally {
    await proxy.close();
  }
  const fd = openSync(file, 'w');
  const u32 = (n) => {
    const buf = Buffer.alloc(4);
    buf.writeUInt32BE(n);
    return buf;
  };
  for (const { request, response } of exchanges) for (const part of [u32(request.length), request, u32(response.length), response]) writeSync(fd, part);
  closeSync(fd);
  return { out, requests: exchanges.length, fetches: exchanges.filter((x) => x.request.readInt16BE(4) === 1 /* Fetch */).length };
}

/**
 * kcat consuming `topic` from a replay server answering from `file` (on the proxy's port, which the recording
 * advertises): seconds, what kcat printed, and how many answers the server sent as recorded and composed.
 */
async function replayConsume(topic, file) {
  const server = await b.nodeServer(['bench/lib/replay-server.mjs', file, String(proxyPort)]);
  const died = new AbortController();
  const gone = new Promise((r) => server.once('exit', r));
  gone.then(() => died.abort(new Error('the replay server exited: a request not in the recording (see its log above)')));
  let stats = '';
  server.stdout.on('data', (d) => (stats += d));
  const t = nowS();
  const out = await run('kcat', consumeArgs(`127.0.0.1:${proxyPort}`, topic), { stdout: 'pipe', signal: AbortSignal.any([died.signal, AbortSignal.timeout(120_000)]) }).catch((e) => {
    died.signal.throwIfAborted();
    throw e;
  });
  const secs = nowS() - t;
  died.signal.throwIfAborted(); // kcat may be done before the server's exit is noticed
  server.kill('SIGTERM');
  await gone;
  return { secs, out, served: JSON.parse(stats) };
}

const lines = (out) => (out.length === 0 ? [] : out.toString().trimEnd().split('\n'));
const lineCount = (out) => lines(out).length;
/** The same offsets printed (in another order, with several partitions). */
const sameOffsets = (a, b) => a.equals(b) || lines(a).sort().join() === lines(b).sort().join();
const r = { gregorProduce: [], mockProduce: [], gregorConsume: [], ceilingConsume: [], consumeRatio: [], consumePairs: [], brokerCpuSecondsPerMillion: [] };
const recordings = [];
const client = new KafkaClient({ brokers: bootstrap });
b.onCleanup(() => client.close());
const admin = new Admin(client);
for (let round = 0; round < ROUNDS; round++) {
  const topic = `bench-${round}`;
  // Created before the clock starts: auto-creation on first use would be timed otherwise.
  const [created] = await admin.createTopics([{ name: topic, numPartitions: PARTITIONS, replicationFactor: 1, configs: { 'compression.type': TOPIC_COMPRESSION } }]);
  if (created.errorCode !== 0) throw new Error(`create ${topic}: ${created.errorMessage}`);
  // kcat -> librdkafka mock broker (ceiling)
  let t = nowS();
  await run('kcat', produceArgs('dummy:9092', topic, 'test.mock.num.brokers=1'));
  r.mockProduce.push(N / (nowS() - t));
  // kcat -> gregor, then back out: the broker's CPU over both (the consumes' mean), per million records produced and consumed
  let cpu0 = b.brokerCpuSeconds();
  t = nowS();
  await run('kcat', produceArgs(bootstrap, topic));
  r.gregorProduce.push(N / (nowS() - t));
  let brokerCpu = b.brokerCpuSeconds() - cpu0;
  // The ceiling's recording (unmeasured, outside the broker's CPU figure), so that each measured gregor consume and
  // its replay run back to back: CONSUME_PAIRS pairs, the replay first in every other one, so neither always has
  // the other's wake. The round's figures are the medians over its pairs.
  const file = join(b.work, 'recording.bin');
  const { out: recordedOut, ...recorded } = await recordConsume(topic, file);
  if (lineCount(recordedOut) !== N) throw new Error(`the recording consume printed ${lineCount(recordedOut)} offsets, expected ${N}`);
  const pairs = [];
  let consumeCpu = 0;
  for (let i = 0; i < CONSUME_PAIRS; i++) {
    let ceiling = (round * CONSUME_PAIRS + i) % 2 === 1 ? await replayConsume(topic, file) : null;
    cpu0 = b.brokerCpuSeconds();
    t = nowS();
    const out = await run('kcat', consumeArgs(bootstrap, topic), { stdout: 'pipe' });
    const secs = nowS() - t;
    const count = lineCount(out);
    if (count !== N) throw new Error(`consumed ${count} records, expected ${N}`);
    b.sample();
    consumeCpu += b.brokerCpuSeconds() - cpu0;
    // kcat -> replay server: kcat's own consume ceiling
    ceiling ??= await replayConsume(topic, file);
    if (!sameOffsets(ceiling.out, out)) throw new Error(`the replayed consume printed ${lineCount(ceiling.out)} offsets, not the gregor run's ${N}`);
    pairs.push({ gregor: N / secs, replay: N / ceiling.secs, served: ceiling.served });
  }
  unlinkSync(file);
  recordings.push({ ...recorded, served: pairs.map((p) => p.served) });
  r.gregorConsume.push(median(pairs.map((p) => p.gregor)));
  r.ceilingConsume.push(median(pairs.map((p) => p.replay)));
  r.consumeRatio.push(median(pairs.map((p) => p.gregor / p.replay)));
  r.consumePairs.push(pairs.map(({ gregor, replay }) => ({ gregor, replay })));
  r.brokerCpuSecondsPerMillion.push(((brokerCpu + consumeCpu / CONSUME_PAIRS) * 1e6) / N);
}
await b.close();
const results = {
  produceGregor: median(r.gregorProduce),
  produceMock: median(r.mockProduce),
  ratio: median(r.gregorProduce) / median(r.mockProduce),
  consumeGregor: median(r.gregorConsume),
  consumeCeiling: median(r.ceilingConsume),
  consumeRatio: median(r.consumeRatio), // the median of the per-round ratios
  recordings, // per round: requests recorded, of which Fetch; per replay, its answers sent as recorded (exact) and composed per partition
  brokerCpuSecondsPerMillion: median(r.brokerCpuSecondsPerMillion),
  runs: r,
  diskWriteMBps: diskWriteMBps(b.work),
};

console.log(`gregor single broker, ${fmt(N)} records of 100 bytes, ${PARTITIONS} partition(s), acks=1, ${ROUNDS} rounds`);
console.log(`  produce  kcat -> gregor       ${fmtRuns(r.gregorProduce)}`);
console.log(`  produce  kcat -> mock broker  ${fmtRuns(r.mockProduce)}   (librdkafka's own ceiling)`);
console.log(`  ratio    gregor / mock        ${results.ratio.toFixed(2)}`);
console.log(`  consume  gregor -> kcat       ${fmtRuns(r.gregorConsume)}`);
console.log(`  consume  replay -> kcat       ${fmtRuns(r.ceilingConsume)}   (kcat's own ceiling: recorded answers replayed; answers as recorded/composed ${recordings.map((x) => x.served.map((s) => `${s.exact}/${s.composed}`).join(' ')).join(', ')})`);
console.log(`  ratio    gregor / replay      ${results.consumeRatio.toFixed(2)} [${r.consumeRatio.map((x) => x.toFixed(2)).join(', ')}]   (median of the rounds' ratios; a round's: the median of its ${CONSUME_PAIRS} pair(s))`);
console.log(`  broker CPU per 1M records produced and consumed  ${results.brokerCpuSecondsPerMillion.toFixed(2)} s [${r.brokerCpuSecondsPerMillion.map((x) => x.toFixed(2)).join(', ')}]`);
console.log(`  disk sequential write         ${results.diskWriteMBps} MB/s (${DISK_MB} MiB, 1 MiB writes + fsync); gregor produce = ${((results.produceGregor * 100) / 1e6).toFixed(0)} MB/s of payload`);

if (PROFILE) {
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
  const self = new Map();
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    const name = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/packages\//, '')}:${n.callFrame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, c) => a + c, 0);
  results.profile = [...self].sort((x, y) => y[1] - x[1]).slice(0, 15).map(([name, us]) => ({ name, share: us / total }));
  console.log('  broker CPU profile (self time, top 15):');
  for (const { name, share } of results.profile) console.log(`    ${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
}
await b.finish(results, {
  charts: [
    { id: 'single-broker-produce', title: `Produce, 1 broker, acks=1, ${fmt(N)} × 100 B (kcat)`, unit: 'records/s', bars: [
      { label: 'kcat → gregor', value: results.produceGregor, runs: r.gregorProduce },
      { label: 'kcat → mock broker', value: results.produceMock, runs: r.mockProduce },
    ] },
    { id: 'single-broker-consume', title: `Consume, 1 broker, ${fmt(N)} × 100 B (kcat)`, unit: 'records/s', bars: [
      { label: 'gregor → kcat', value: results.consumeGregor, runs: r.gregorConsume },
      { label: 'replay → kcat (kcat’s ceiling)', value: results.consumeCeiling, runs: r.ceilingConsume },
    ] },
  ],
});
