#!/usr/bin/env node
// Three brokers with replication factor 3 on this machine (processes, a 3-node ZooKeeper ensemble):
//  1. end-to-end latency (send with acks=all -> received by a consumer) at a fixed moderate rate, after a warm-up;
//  2. produce throughput with kcat, acks=all, N records of 100 bytes, min.insync.replicas=2, alternating with the same
//     records into an RF 1 topic (acks=1) of the same cluster: the RF 3 / RF 1 ratio in one run;
//  3. unavailability after kill -9 of a partition leader, and after a controlled shutdown (SIGTERM):
//     time from the fault to the first successful acks=all write on that partition.
//
//   npm run build && node bench/replicated.mjs [--json <file>]
//   [--full] env: N=200000 (--full: 1000000) ROUNDS=2 WARMUP_ROUNDS=1 PARTITIONS=3 RATE=1000 SECONDS=10 WARMUP_SECONDS=5 SESSION_MS=6000 PHASES=throughput,latency,failover EXTRA_PROPS=k=v,...
//   IDEMPOTENT=1 (the latency phase's producer), LATENCY_TRACE=1 (root, tcpdump installed): splits each record's end-to-end time into stages (bench/lib/latency-trace.mjs)
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, Consumer, KafkaClient, Producer } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { childrenCpuSeconds, createTopicRetrying, fmt, fmtPaired, fmtRuns, kcatProduceArgs, linesFile, machineCpuPercent, machineCpuTicks, median, nowMs, pairedRatios, pct, run, sleep, startBench } from './lib/bench.mjs';
import { realtimeMs, startCapture, summarizeTrace, traceRecords, traceTable } from './lib/latency-trace.mjs';

const PHASES = new Set((process.env.PHASES ?? 'throughput,latency,failover').split(','));
const b = await startBench('replicated', { env: { N: [200_000, 1_000_000], PARTITIONS: 3, RATE: 1000, SECONDS: 10, WARMUP_SECONDS: 5, SESSION_MS: 6000 }, params: { phases: [...PHASES], recordBytes: 100, idempotentLatencyProducer: process.env.IDEMPOTENT === '1' } });
const { N, PARTITIONS, RATE, SECONDS, WARMUP_SECONDS, SESSION_MS } = b.params;
process.env.LOG_LEVEL ??= 'warn';

// --- cluster -------------------------------------------------------------------------------
const { ensemble, brokers, bootstrap } = await b.cluster({ brokers: 3, zookeepers: 3, props: {
  'zookeeper.session.timeout.ms': String(SESSION_MS), 'replica.fetch.wait.max.ms': '100',
  'auto.leader.rebalance.enable': 'false', 'controlled.shutdown.retry.backoff.ms': '200',
} });
const zkClient = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10_000, logger: silentLogger() });
b.onCleanup(() => zkClient.close());
const zk = new KafkaZkClient(zkClient);
const client = new KafkaClient({ brokers: bootstrap, metadataMaxAgeMs: 500 });
b.onCleanup(() => client.close());
const admin = new Admin(client);
async function createTopic(name, partitions = PARTITIONS, replicationFactor = 3) {
  const configs = replicationFactor === 3 ? { 'min.insync.replicas': '2' } : {};
  // Retried while the cluster is still coming up (the first topic can meet a broker not yet registered).
  await createTopicRetrying(admin, name, partitions, { replicationFactor, configs });
  for (let i = 0; i < 100; i++) {
    const states = await Promise.all(Array.from({ length: partitions }, (_, p) => zk.getPartitionState(name, p)));
    if (states.every((s) => s && s.state.isr.length === replicationFactor)) return;
    await sleep(100);
  }
}

const out = { throughput: [], brokerCpuSecondsPerMillion: [], throughputRf1: [], rounds: [], warmupRounds: [] };
// --- 1. end-to-end latency ------------------------------------------------------------------
// Measured first, on the fresh cluster: after the throughput phase the kernel is still writing that phase's dirty
// pages back (some 800 MB over the three brokers with --full), which is that phase's load, not this one's.
if (PHASES.has('latency')) {
  // One partition, as Kafka's end-to-end latency tool: the consumer's long poll then waits on one leader only.
  await createTopic('latency', 1);
  const tracing = process.env.LATENCY_TRACE === '1';
  const pcapFile = join(b.work, 'latency.pcap');
  const brokerPorts = [...brokers.values()].map((broker) => broker.port);
  const capture = tracing ? await startCapture(brokerPorts, pcapFile) : null;
  const traced = []; // [value, sent, received] on the realtime clock
  const sentRealtime = new Map();
  // IDEMPOTENT=1: up to 5 requests in flight per partition instead of 1 (a record then never waits for the ack of
  // the one before it; see the trace's `queued`).
  const producer = new Producer(client, { acks: -1, ...(process.env.IDEMPOTENT === '1' ? { idempotent: true } : {}) });
  // Its own connections: a long-poll fetch must not sit in front of produce responses.
  const consumerClient = new KafkaClient({ brokers: bootstrap });
  const consumer = new Consumer(consumerClient, { maxWaitMs: 100, minBytes: 1 });
  const sentAt = new Map();
  // Records sent in the warm-up seconds (same rate, same path) are measured apart: a freshly started broker and
  // client run their first seconds of this traffic unoptimised (V8 compiles the hot paths then), and the steady
  // state is what the target is about (the OpenMessaging Benchmark warms up the same way). Both are reported.
  const warmupTotal = RATE * WARMUP_SECONDS;
  const total = warmupTotal + RATE * SECONDS;
  const inWarmup = (value) => Number(value.slice(4)) < warmupTotal; // lat-<i>
  const latencies = [];
  const warmupLatencies = [];
  const abort = new AbortController();
  const reading = (async () => {
    for await (const r of consumer.consume({ topic: 'latency', from: 'latest', signal: abort.signal })) {
      const v = r.value.toString();
      const t = sentAt.get(v);
      if (t === undefined) continue;
      (inWarmup(v) ? warmupLatencies : latencies).push(nowMs() - t);
      if (tracing) traced.push([v, sentRealtime.get(v), realtimeMs()]);
      if (latencies.length + warmupLatencies.length >= total) break;
    }
  })().catch(() => {});
  await sleep(1000);
  const started = nowMs();
  let measuredFrom = machineCpuTicks();
  const inflight = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / RATE - nowMs();
    if (wait > 1) await sleep(wait);
    if (i === warmupTotal) measuredFrom = machineCpuTicks();
    const v = `lat-${i}`;
    sentAt.set(v, nowMs());
    if (tracing) sentRealtime.set(v, realtimeMs());
    inflight.push(producer.send({ topic: 'latency', messages: [{ key: v, value: v }] }));
    if (inflight.length > 200) await inflight.shift();
  }
  await Promise.all(inflight);
  for (let i = 0; i < 50 && latencies.length + warmupLatencies.length < total; i++) await sleep(100);
  // The machine while the measured records went through: a VM's steal is time its cores waited for the host's.
  const machine = machineCpuPercent(measuredFrom);
  abort.abort();
  await reading;
  await consumerClient.close();
  const summary = (xs) => (xs.length ? { n: xs.length, p50: pct(xs, 50), p99: pct(xs, 99), max: Math.max(...xs) } : null);
  out.latencyWarmup = summary(warmupLatencies);
  out.latency = latencies.length ? { ...summary(latencies), machineBusyPercent: machine.busy, machineStealPercent: machine.steal } : null;
  if (capture) {
    await capture.stop();
    const rows = traceRecords(pcapFile, traced, brokerPorts);
    writeFileSync(join(b.work, 'latency-trace.json'), JSON.stringify(rows));
    out.latencyTrace = { warmup: summarizeTrace(rows.filter((r) => inWarmup(r.value))), steady: summarizeTrace(rows.filter((r) => !inWarmup(r.value))) };
  }
}

// --- 2. throughput -------------------------------------------------------------------------
// Each round produces N records into a new RF 3 topic (acks=all) and then into a new RF 1 topic (acks=1), and deletes
// both once their log directories are gone from every broker: the next round starts without the page cache's dirty
// data of the last (which otherwise piles up until the kernel's background writeback slows whichever round meets it).
// WARMUP_ROUNDS rounds run first and are not counted: the brokers' JIT compiles the replication paths in them.
const logDirsOf = (topic) => [...brokers.values()].flatMap((br) => {
  try {
    return readdirSync(br.dataDir).filter((d) => d.startsWith(`${topic}-`));
  } catch {
    return [];
  }
});
async function deleteTopicAndFiles(topic) {
  await admin.deleteTopics([topic]);
  for (let i = 0; i < 300 && logDirsOf(topic).length > 0; i++) await sleep(100);
}
/** kcat producing the input into `topic`: records/s, the brokers' and kcat's CPU-seconds per 1M records, the machine's busy %. */
async function kcatPhase(input, topic, acks) {
  const cpu0 = b.brokerCpuSeconds();
  const kcat0 = childrenCpuSeconds();
  const machine0 = machineCpuTicks();
  const t = nowMs();
  await run('kcat', kcatProduceArgs(bootstrap, topic, input, `acks=${acks}`));
  const seconds = (nowMs() - t) / 1000;
  b.sample();
  const perMillion = (cpuSeconds) => Math.round((cpuSeconds * 1e6 * 100) / N) / 100;
  return { recordsPerSecond: N / seconds, brokerCpu: perMillion(b.brokerCpuSeconds() - cpu0), kcatCpu: perMillion(childrenCpuSeconds() - kcat0), machineBusy: machineCpuPercent(machine0).busy };
}
if (PHASES.has('throughput')) {
  const input = await linesFile(join(b.work, 'lines.txt'), N);
  const warmupRounds = Number(process.env.WARMUP_ROUNDS ?? 1);
  for (let round = -warmupRounds; round < Number(process.env.ROUNDS ?? 2); round++) {
    const name = round < 0 ? `warm-up-${-round}` : String(round);
    await createTopic(`tput-${name}`);
    const rf3 = await kcatPhase(input, `tput-${name}`, 'all');
    // The same records into an RF 1 topic of the same cluster with acks=1 (each broker leads one of its partitions):
    // the baseline issue 14's ratio is taken against, in the same run.
    await createTopic(`tput-rf1-${name}`, PARTITIONS, 1);
    const rf1 = await kcatPhase(input, `tput-rf1-${name}`, '1');
    await Promise.all([deleteTopicAndFiles(`tput-${name}`), deleteTopicAndFiles(`tput-rf1-${name}`)]);
    if (round < 0) {
      out.warmupRounds.push({ rf3, rf1 });
      continue;
    }
    out.throughput.push(rf3.recordsPerSecond);
    out.brokerCpuSecondsPerMillion.push(rf3.brokerCpu);
    out.throughputRf1.push(rf1.recordsPerSecond);
    out.rounds.push({ rf3, rf1 });
  }
}

// --- 3. unavailability after faults ----------------------------------------------------------
// Writes one record at a time to partition 0 with acks=all from the fault until the old leader has exited
// (and 2 s more); the window is the longest time between two successful writes.
async function unavailability(kind) {
  const topic = `fail-${kind}`;
  await createTopic(topic);
  const leader = brokers.get((await zk.getPartitionState(topic, 0)).state.leader);
  const pc = new KafkaClient({ brokers: bootstrap, metadataMaxAgeMs: 200, requestTimeoutMs: 2000 });
  const p = new Producer(pc, { acks: -1, retryBackoffMs: 20, retryBackoffMaxMs: 50, deliveryTimeoutMs: 60_000, requestTimeoutMs: 2000 });
  await p.send({ topic, messages: [{ value: 'warm-up', partition: 0 }] });
  let exitedAt = null;
  b.sample(); // the victim's last CPU figure
  const exited = (kind === 'kill' ? leader.kill() : leader.stop()).then(() => (exitedAt = nowMs()));
  let last = nowMs();
  let worst = 0;
  for (let i = 0; nowMs() - last < 60_000 && (exitedAt === null || nowMs() - exitedAt < 2000); i++) {
    try {
      await p.send({ topic, messages: [{ value: `after-${i}`, partition: 0 }] });
      const t = nowMs();
      worst = Math.max(worst, t - last);
      last = t;
    } catch {
      await sleep(10);
    }
  }
  await exited;
  await pc.close();
  await b.start(leader);
  return worst;
}
if (PHASES.has('failover')) {
  out.killWindowMs = await unavailability('kill');
  await sleep(2000);
  out.controlledWindowMs = await unavailability('term');
}

console.log(`gregor, 3 brokers, replication factor 3, min.insync.replicas=2, ${PARTITIONS} partitions (processes on one machine)`);
if (out.throughput.length) {
  out.produceAcksAll = median(out.throughput);
  console.log(`  produce kcat acks=all  ${fmtRuns(out.throughput)} (${fmt(N)} x 100 B); brokers' CPU ${median(out.brokerCpuSecondsPerMillion).toFixed(2)} s per 1M records`);
  out.produceRf1Acks1 = median(out.throughputRf1);
  out.rf3ToRf1 = out.produceAcksAll / out.produceRf1Acks1;
  console.log(`  produce kcat RF 1 acks=1 ${fmtRuns(out.throughputRf1)} (same cluster and partitions); RF 3 acks=all / RF 1 = ${out.rf3ToRf1.toFixed(2)}`);
  // Each round measures RF 3 and then RF 1 back to back, so its ratio is paired: the machine's drift between rounds
  // (RF 1 alone moves 1.1M-2.2M records/s within minutes here) cancels out of it.
  const paired = pairedRatios(out.throughputRf1, out.throughput);
  out.rf3ToRf1PerRound = paired.ratios;
  out.rf3ToRf1MedianOfRounds = paired.median;
  out.rf3ToRf1Ci95 = paired.ci95;
  console.log(`  RF 3 / RF 1 per round  ${out.rf3ToRf1PerRound.map((r) => r.toFixed(2)).join(', ')}: ${fmtPaired(paired)}`);
  // Where the CPU went: kcat shares the machine's cores with the brokers, and RF 3 fills them while RF 1 does not.
  const cpuLine = (k) => `brokers ${median(out.rounds.map((r) => r[k].brokerCpu)).toFixed(2)}, kcat ${median(out.rounds.map((r) => r[k].kcatCpu)).toFixed(2)} CPU-s per 1M; machine busy ${median(out.rounds.map((r) => r[k].machineBusy))} %`;
  console.log(`    RF 3 phases (median)  ${cpuLine('rf3')}`);
  console.log(`    RF 1 phases (median)  ${cpuLine('rf1')}`);
  if (out.warmupRounds.length) console.log(`    warm-up rounds, not counted: RF 3 / RF 1 ${out.warmupRounds.map((r) => (r.rf3.recordsPerSecond / r.rf1.recordsPerSecond).toFixed(2)).join(', ')}`);
}
if (out.latency) console.log(`  end-to-end latency     p50 ${out.latency.p50.toFixed(1)} ms, p99 ${out.latency.p99.toFixed(1)} ms, max ${out.latency.max.toFixed(1)} ms (${out.latency.n} records at ${RATE}/s, acks=all, after ${WARMUP_SECONDS} s of warm-up; machine busy ${out.latency.machineBusyPercent} %, steal ${out.latency.machineStealPercent} %)`);
if (out.latencyWarmup) console.log(`    its warm-up seconds  p50 ${out.latencyWarmup.p50.toFixed(1)} ms, p99 ${out.latencyWarmup.p99.toFixed(1)} ms, max ${out.latencyWarmup.max.toFixed(1)} ms (the first ${out.latencyWarmup.n} records after the brokers started)`);
if (out.latencyTrace?.steady) console.log(traceTable(`where the time goes after the warm-up, ms`, out.latencyTrace.steady));
if (out.latencyTrace?.warmup) console.log(traceTable(`where the time goes in the warm-up, ms`, out.latencyTrace.warmup));
if (out.killWindowMs !== undefined) console.log(`  kill -9 of a leader    longest gap between acks=all writes ${out.killWindowMs.toFixed(0)} ms (zookeeper.session.timeout.ms=${SESSION_MS})`);
if (out.controlledWindowMs !== undefined) console.log(`  controlled shutdown    longest gap between acks=all writes ${out.controlledWindowMs.toFixed(0)} ms`);
const charts = [];
if (out.throughput.length) charts.push({ id: 'replicated-produce', title: `Produce, 3 brokers, RF 3, acks=all, ${fmt(N)} × 100 B (kcat)`, unit: 'records/s', bars: [{ label: 'kcat → gregor RF 3, acks=all', value: out.produceAcksAll, runs: out.throughput }, { label: 'RF 1, acks=1 (same run)', value: out.produceRf1Acks1, runs: out.throughputRf1 }] });
if (out.latency) charts.push({ id: 'replicated-latency', title: `End-to-end latency, RF 3, acks=all, ${RATE} records/s, after a ${WARMUP_SECONDS} s warm-up (host steal ${out.latency.machineStealPercent} % meanwhile)`, unit: 'ms', bars: [{ label: 'p50', value: out.latency.p50 }, { label: 'p99', value: out.latency.p99 }, { label: 'max', value: out.latency.max }, ...(out.latencyWarmup ? [{ label: `p99 in the ${WARMUP_SECONDS} s warm-up`, value: out.latencyWarmup.p99 }] : [])] });
if (out.killWindowMs !== undefined) charts.push({ id: 'replicated-failover', title: `Longest gap between acks=all writes (session ${SESSION_MS} ms)`, unit: 'ms', bars: [{ label: 'kill -9 of the leader', value: out.killWindowMs }, { label: 'controlled shutdown', value: out.controlledWindowMs }] });
await b.finish(out, { charts });
process.exit(0);
