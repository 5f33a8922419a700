#!/usr/bin/env node
// Event-loop stalls a broker inflicts on itself (issue 11, "No self-inflicted session loss"), in one process with real
// files: the ZooKeeper session and every request of a broker wait while its event loop is blocked.
//  1. A LeaderAndIsr making this broker leader of PARTITIONS partitions (a new leader epoch for each, so one
//     leader-epoch-checkpoint write each), with the checkpoint fsyncs on the event loop (before) and in the
//     background (now): duration of the call, event-loop delay p99 / max while it and its writes run.
//  2. Compaction of a SIZE_MB compacted log, in one synchronous pass (before) and as the broker now runs it
//     (cleanAsync: a turn for the event loop after every chunk read): how long the pass takes and how long the event
//     loop waits at most (p99, max).
//
//  3. A LeaderAndIsr making this broker a replica of CREATE partitions it has no log for yet (all created at once), and
//     a start of the log manager loading those CREATE logs: the call's duration and the event-loop delay meanwhile
//     (a broker's ZooKeeper session is lost once its loop is blocked for the session timeout). Where the code has
//     ReplicaManager.createLogsFor / LogManager.startupAsync they are used (now), otherwise the synchronous path (before).
//  The cleaning phase also samples the process's RSS every 10 ms: the peak above the RSS before the pass.
//
//   npm run build && node bench/event-loop-stalls.mjs [--json <file>] [--full]   env: PARTITIONS=500 SIZE_MB=64 (--full: 256) KEYS=10000 CREATE=500 (--full: 2000) PHASES=leadership,cleaning,creation
//   --combined: the same two stalls at once in a real broker of a 3-broker cluster, with its ZooKeeper session
//   (bench/lib/combined-stalls.mjs: cleaning a 1 GB compacted log while 500 leaders move onto it).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ReplicaManager } from '@gregor/broker';
import { silentLogger } from '@gregor/common';
import { CompressionType, encodeRecordBatch } from '@gregor/protocol';
import { DEFAULT_LOG_CONFIG, LogCleaner, LogManager } from '@gregor/storage';
import { sleep, startBench } from './lib/bench.mjs';

if (process.argv.includes('--combined')) {
  await (await import('./lib/combined-stalls.mjs')).combined();
  process.exit(0);
}

const PHASES = new Set((process.env.PHASES ?? 'leadership,cleaning,creation').split(','));
const b = await startBench('event-loop-stalls', { env: { PARTITIONS: 500, SIZE_MB: [64, 256], KEYS: 10_000, CREATE: [500, 2000] }, params: { phases: [...PHASES] } });
const { PARTITIONS, SIZE_MB, KEYS, CREATE } = b.params;
const work = b.work;
const rows = [];

const ms = (ns) => (ns / 1e6).toFixed(1);

function logManager(dir, leaderEpochCheckpointWriter, start = true) {
  const m = new LogManager({
    logDirs: [dir],
    defaultConfig: { ...DEFAULT_LOG_CONFIG, segmentBytes: 64 << 20 },
    logger: silentLogger(),
    brokerId: 1,
    retentionCheckIntervalMs: 3_600_000,
    flushCheckpointIntervalMs: 3_600_000,
    leaderEpochCheckpointWriter,
  });
  if (start) m.startup();
  return m;
}

function replicaManager(logs) {
  return new ReplicaManager({
    brokerId: 1,
    logManager: logs,
    logger: silentLogger(),
    minInsyncReplicas: () => 1,
    topicLogConfig: () => ({}),
    messageMaxBytes: () => 1 << 20,
    fetcher: { brokerId: 1, maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20, backoffMs: 100, requestTimeoutMs: 30_000 },
    replicaLagTimeMaxMs: 30_000,
    leaderEndpoint: () => undefined,
    isrManager: { writeIsr: () => new Promise(() => {}) },
  });
}

/** Runs `work` with the event-loop delay monitored: its duration and the delay's p99 / max, in ms. */
async function monitored(work) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await sleep(50);
  const t0 = process.hrtime.bigint();
  await work();
  const callMs = Number(process.hrtime.bigint() - t0) / 1e6;
  await sleep(50);
  h.disable();
  return { callMs, loopP99Ms: h.percentile(99) / 1e6, loopMaxMs: h.max / 1e6 };
}
const fmtRun = (r) => `${r.callMs.toFixed(1)} ms, event-loop delay p99 ${r.loopP99Ms.toFixed(1)} ms, max ${r.loopMaxMs.toFixed(1)} ms`;

async function creation() {
  const dir = join(work, 'creation');
  const logs = logManager(dir);
  const rm = replicaManager(logs);
  const sliced = typeof rm.createLogsFor === 'function';
  // Leader of half the partitions, follower of broker 2 for the rest (no fetcher connects: no endpoint).
  const states = Array.from({ length: CREATE }, (_, i) => ({ topic: 'created', partition: i, controllerEpoch: 1, leader: i % 2 === 0 ? 1 : 2, leaderEpoch: 0, isr: [1, 2], zkVersion: 0, replicas: [1, 2], isNew: true }));
  const created = await monitored(async () => {
    if (!sliced) return void rm.becomeLeaderOrFollower(0, 1, states);
    // As the LeaderAndIsr handler does: the logs first, then the leadership 250 partitions per turn of the event loop.
    await rm.createLogsFor(states);
    for (let i = 0; i < states.length; i += 250) {
      if (i > 0) await new Promise((r) => setImmediate(r));
      rm.becomeLeaderOrFollower(0, 1, states.slice(i, i + 250));
    }
  });
  const label = sliced ? 'createLogsFor, then the leadership (now)' : 'created one by one in becomeLeaderOrFollower (before)';
  rows.push({ step: `LeaderAndIsr creating ${CREATE} logs, ${label}`, ...created });
  console.log(`LeaderAndIsr creating ${CREATE} logs, ${label}: ${fmtRun(created)}`);
  await logs.awaitLeaderEpochCheckpoints();
  await rm.shutdown();
  logs.shutdown();
  const again = logManager(dir, undefined, false);
  const async = typeof again.startupAsync === 'function';
  const loaded = await monitored(async () => (async ? await again.startupAsync() : again.startup()));
  const how = async ? 'startupAsync (now)' : 'startup, in one go (before)';
  rows.push({ step: `loading ${CREATE} logs, ${how}`, ...loaded });
  console.log(`loading ${again.allLogs().length} logs at startup, ${how}: ${fmtRun(loaded)}`);
  again.shutdown();
  rmSync(dir, { recursive: true, force: true });
}

async function leadership(label, writer) {
  const dir = join(work, `leadership-${label}`);
  const logs = logManager(dir, writer);
  const rm = replicaManager(logs);
  const states = (epoch) =>
    Array.from({ length: PARTITIONS }, (_, i) => ({ topic: 'lead', partition: i, controllerEpoch: 1, leader: 1, leaderEpoch: epoch, isr: [1], zkVersion: epoch, replicas: [1], isNew: epoch === 0 }));
  rm.becomeLeaderOrFollower(0, 1, states(0)); // the logs exist
  await logs.awaitLeaderEpochCheckpoints();
  // Each partition gets a record, so the new epoch is a new checkpoint entry.
  for (let i = 0; i < PARTITIONS; i++) rm.appendRecords(1000, 1, [{ topic: 'lead', partition: i, records: batch(1, 0) }]);
  await logs.awaitLeaderEpochCheckpoints();
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await sleep(50);
  const t0 = process.hrtime.bigint();
  rm.becomeLeaderOrFollower(0, 1, states(1));
  const call = process.hrtime.bigint() - t0;
  await logs.awaitLeaderEpochCheckpoints();
  const durable = process.hrtime.bigint() - t0;
  await sleep(50);
  h.disable();
  rows.push({ step: `LeaderAndIsr of ${PARTITIONS} partitions, checkpoints ${label}`, callMs: Number(call) / 1e6, durableMs: Number(durable) / 1e6, loopP99Ms: h.percentile(99) / 1e6, loopMaxMs: h.max / 1e6 });
  console.log(
    `leadership change of ${PARTITIONS} partitions, epoch checkpoints ${label}: LeaderAndIsr ${ms(Number(call))} ms, all checkpoints on disk after ${ms(Number(durable))} ms, ` +
      `event-loop delay p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms`,
  );
  await rm.shutdown();
  logs.shutdown();
}

function batch(count, start) {
  const t = Date.now();
  return encodeRecordBatch({
    baseOffset: 0,
    compression: CompressionType.none,
    firstTimestamp: t,
    records: Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`key-${(start + i) % KEYS}`), value: Buffer.alloc(1000, 120), headers: [], timestamp: t })),
  });
}

async function cleaning(label, mode) {
  const logs = logManager(join(work, `cleaning-${mode}`));
  const log = logs.getOrCreateLog('compacted', 0, { segmentBytes: 64 << 20 });
  const perBatch = 100;
  const batches = Math.ceil((SIZE_MB << 20) / (perBatch * 1030));
  for (let b = 0; b < batches; b++) {
    log.appendAsLeader(batch(perBatch, b * perBatch), 0);
    if (b % 200 === 0) await sleep(0);
  }
  log.updateHighWatermark(log.logEndOffset);
  await logs.awaitLeaderEpochCheckpoints();
  const cleaner = new LogCleaner({ logs: () => [log], isCompacted: () => true, deleteRetentionMs: () => 86_400_000, intervalMs: 3_600_000, logger: silentLogger() });
  global.gc?.(); // with --expose-gc: the RSS before the pass is not last phase's garbage
  await sleep(200);
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await sleep(50);
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  // Sampled on a timer, so only between the pass's turns: a synchronous pass is sampled after it (its peak may be missed).
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 10);
  const t0 = process.hrtime.bigint();
  const result = mode === 'sync' ? cleaner.clean(log) : await cleaner.cleanAsync(log);
  const took = process.hrtime.bigint() - t0;
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  clearInterval(sampler);
  await sleep(50);
  h.disable();
  const mb = (x) => (x / 1048576).toFixed(0);
  rows.push({ step: `cleaning ${SIZE_MB} MB, ${label}`, callMs: Number(took) / 1e6, recordsBefore: result?.recordsBefore, recordsAfter: result?.recordsAfter, bytesAfter: result?.bytesAfter, loopP99Ms: h.percentile(99) / 1e6, loopMaxMs: h.max / 1e6, rssBeforeMiB: rssBefore / 1048576, rssPeakMiB: rssPeak / 1048576 });
  console.log(
    `cleaning ${SIZE_MB} MB compacted (${KEYS} keys, ${result?.recordsBefore} records -> ${result?.recordsAfter}, ${mb(result?.bytesAfter ?? 0)} MB kept), ${label}: pass ${ms(Number(took))} ms, ` +
      `event-loop delay p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms; RSS ${mb(rssBefore)} MB before, peak ${mb(rssPeak)} MB (+${mb(rssPeak - rssBefore)} MB)`,
  );
  logs.shutdown();
  rmSync(join(work, `cleaning-${mode}`), { recursive: true, force: true });
}

{
  if (PHASES.has('leadership')) {
    await leadership('fsynced on the event loop (before)', null);
    await leadership('written in the background (now)', undefined);
  }
  if (PHASES.has('cleaning')) {
    if (process.env.SKIP_SYNC !== '1') await cleaning('one synchronous pass (before)', 'sync');
    await cleaning('cleanAsync', 'async');
  }
  if (PHASES.has('creation')) await creation();
}
await b.finish({ steps: rows }, {
  charts: [{ id: 'event-loop-stalls', title: 'Longest event-loop stall per step (one process, real files)', unit: 'ms', bars: rows.map((r) => ({ label: r.step, value: r.loopMaxMs })) }],
});
