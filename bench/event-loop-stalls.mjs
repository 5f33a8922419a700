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
//   npm run build && node bench/event-loop-stalls.mjs [--json <file>] [--full]   env: PARTITIONS=500 SIZE_MB=64 (--full: 256) KEYS=10000 PHASES=leadership,cleaning
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ReplicaManager } from '@gregor/broker';
import { silentLogger } from '@gregor/common';
import { CompressionType, encodeRecordBatch } from '@gregor/protocol';
import { DEFAULT_LOG_CONFIG, LogCleaner, LogManager } from '@gregor/storage';
import { sleep, startBench } from './lib/bench.mjs';

const PHASES = new Set((process.env.PHASES ?? 'leadership,cleaning').split(','));
const b = await startBench('event-loop-stalls', { env: { PARTITIONS: 500, SIZE_MB: [64, 256], KEYS: 10_000 }, params: { phases: [...PHASES] } });
const { PARTITIONS, SIZE_MB, KEYS } = b.params;
const work = b.work;
const rows = [];

const ms = (ns) => (ns / 1e6).toFixed(1);

function logManager(dir, leaderEpochCheckpointWriter) {
  const m = new LogManager({
    logDirs: [dir],
    defaultConfig: { ...DEFAULT_LOG_CONFIG, segmentBytes: 64 << 20 },
    logger: silentLogger(),
    brokerId: 1,
    retentionCheckIntervalMs: 3_600_000,
    flushCheckpointIntervalMs: 3_600_000,
    leaderEpochCheckpointWriter,
  });
  m.startup();
  return m;
}

async function leadership(label, writer) {
  const dir = join(work, `leadership-${label}`);
  const logs = logManager(dir, writer);
  const rm = new ReplicaManager({
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
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await sleep(50);
  const t0 = process.hrtime.bigint();
  const result = mode === 'sync' ? cleaner.clean(log) : await cleaner.cleanAsync(log);
  const took = process.hrtime.bigint() - t0;
  await sleep(50);
  h.disable();
  rows.push({ step: `cleaning ${SIZE_MB} MB, ${label}`, callMs: Number(took) / 1e6, recordsBefore: result?.recordsBefore, recordsAfter: result?.recordsAfter, loopP99Ms: h.percentile(99) / 1e6, loopMaxMs: h.max / 1e6 });
  console.log(
    `cleaning ${SIZE_MB} MB compacted (${KEYS} keys, ${result?.recordsBefore} records -> ${result?.recordsAfter}), ${label}: pass ${ms(Number(took))} ms, ` +
      `event-loop delay p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms`,
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
    await cleaning('cleanAsync (now)', 'async');
  }
}
await b.finish({ steps: rows }, {
  charts: [{ id: 'event-loop-stalls', title: 'Longest event-loop stall per step (one process, real files)', unit: 'ms', bars: rows.map((r) => ({ label: r.step, value: r.loopMaxMs })) }],
});
