#!/usr/bin/env node
// The follower's append path (issue 14): nanoseconds per batch from a fetched record set to the log, through the
// real ReplicaFetcherThread.processPartitionData and PartitionLog.appendAsFollower (segment files in /dev/shm when
// it exists, so the disk does not drown the parse). Each fetch answer is ~1 MB: BATCHES batches of RECORDS
// 100-byte records, ending with a partial batch as real answers do. Also times the batch scans alone.
//
//   npm run build && node bench/follower-append.mjs [--json <file>]     env: BATCHES=160 RECORDS=50 FETCHES=40 ROUNDS=5
//   ROOT=<checkout>: run another checkout's build (its main, for a before/after in one sitting)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, startBench } from './lib/bench.mjs';

const root = process.env.ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const { encodeRecordBatch, CompressionType, setBaseOffset, forEachBatch } = await import(join(root, 'packages/protocol/dist/index.js'));
const { PartitionLog, DEFAULT_LOG_CONFIG } = await import(join(root, 'packages/storage/dist/index.js'));
const { ReplicaFetcherThread } = await import(join(root, 'packages/broker/dist/replication/replica-fetcher-thread.js'));
const { silentLogger } = await import(join(root, 'packages/common/dist/index.js'));
const protocol = await import(join(root, 'packages/protocol/dist/index.js'));

const bench = await startBench('follower-append', { env: { BATCHES: 160, RECORDS: 50, FETCHES: 40, ROUNDS: 5 }, params: { root } });
const { BATCHES, RECORDS, FETCHES, ROUNDS } = bench.params;

const now = Date.now();
const one = encodeRecordBatch({
  baseOffset: 0,
  compression: CompressionType.none,
  firstTimestamp: now,
  records: Array.from({ length: RECORDS }, (_, i) => ({ key: null, value: Buffer.alloc(100, i), headers: [], timestamp: now })),
});
/** A fetch answer starting at `base`: BATCHES whole batches and the first half of one more. */
function fetchAnswer(base) {
  const buf = Buffer.concat([...Array.from({ length: BATCHES }, () => one), one.subarray(0, one.length >> 1)]);
  for (let i = 0, pos = 0; i < BATCHES; i++, pos += one.length) setBaseOffset(buf, pos, base + i * RECORDS);
  return buf;
}

const scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: 1 << 30 };
const thread = new ReplicaFetcherThread(
  { name: 'bench', source: { brokerId: 1, host: 'localhost', port: 1 }, clientId: 'bench', replicaId: 2, maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 24, partitionMaxBytes: 1 << 20, backoffMs: 100, requestTimeoutMs: 1000, logger: silentLogger() },
  {
    // The Partition's part of the path (appendRecordsAsFollower) is a guard and a call: stood in for here.
    partition: () => current,
    onAppended: () => {},
    onLogStartOffsetIncremented: () => {},
    onPartitionsFailed: () => {},
  },
);
let current;

function round() {
  const dir = mkdtempSync(join(scratch, 'gregor-bench-follower-'));
  const log = new PartitionLog({ dir, topic: 't', partition: 0, config, logger: silentLogger() });
  current = {
    get logEndOffset() {
      return log.logEndOffset;
    },
    appendRecordsAsFollower(records) {
      if (records && records.length > 0) log.appendAsFollower(records);
      return { logStartOffsetMoved: false };
    },
  };
  const answers = Array.from({ length: FETCHES }, (_, f) => fetchAnswer(f * BATCHES * RECORDS));
  const t0 = process.hrtime.bigint();
  for (const recordSet of answers) thread.processPartitionData({ topic: 't', partition: 0, fetchOffset: log.logEndOffset, currentLeaderEpoch: 0 }, { recordSet, highWatermark: 0, logStartOffset: 0 });
  const t1 = process.hrtime.bigint();
  if (log.logEndOffset !== FETCHES * BATCHES * RECORDS) throw new Error(`log end ${log.logEndOffset}, expected ${FETCHES * BATCHES * RECORDS}`);
  log.close();
  rmSync(dir, { recursive: true, force: true });
  return Number(t1 - t0) / (FETCHES * BATCHES);
}

/**
 * The scans alone, interleaved in one process: the path before (the fetcher's whole-batch walk, then the log's
 * CRC-checked split of what it kept) and after (the log's one split, leaving out the partial tail).
 */
function scans() {
  const answer = fetchAnswer(0);
  const whole = answer.subarray(0, BATCHES * one.length);
  const split = protocol.splitBatches ?? storageSplit;
  const twice = () => {
    const complete = forEachBatch(answer, () => {}, { allowPartialTail: true });
    split(whole.subarray(0, complete));
  };
  const once = protocol.splitBatches ? () => protocol.splitBatches(answer, { allowPartialTail: true }) : null;
  let before = 0n;
  let after = 0n;
  for (let i = 0; i < FETCHES; i++) {
    const t0 = process.hrtime.bigint();
    twice();
    const t1 = process.hrtime.bigint();
    once?.();
    const t2 = process.hrtime.bigint();
    before += t1 - t0;
    after += t2 - t1;
  }
  return { before: Number(before) / (FETCHES * BATCHES), after: once ? Number(after) / (FETCHES * BATCHES) : NaN };
}
// A build from before the one batch view has the CRC split in storage.
const storageSplit = protocol.splitBatches ? null : (await import(join(root, 'packages/storage/dist/batch-scan.js'))).splitBatches;

console.log(`follower append: ${BATCHES} batches x ${RECORDS} records x 100 B per fetch (${((BATCHES * one.length) / 1e6).toFixed(2)} MB), ${FETCHES} fetches per round, files in ${scratch}`);
const ns = { endToEnd: [], scanTwice: [], scanOnce: [] };
for (let r = 0; r < ROUNDS; r++) {
  const perBatch = round();
  const s = scans();
  ns.endToEnd.push(perBatch);
  ns.scanTwice.push(s.before);
  if (!Number.isNaN(s.after)) ns.scanOnce.push(s.after);
  console.log(`round ${r + 1}: ${perBatch.toFixed(0)} ns/batch fetch answer -> log; scans alone: walk + split (before) ${s.before.toFixed(0)} ns/batch, one split (after) ${s.after.toFixed(0)} ns/batch`);
}
await bench.finish({ nsPerBatch: ns, batchBytes: one.length }, {
  charts: [{ id: 'follower-append', title: `Follower append, ns per ${(one.length / 1024).toFixed(1)} KiB batch`, unit: 'ns', bars: [
    { label: 'fetch answer -> log', value: median(ns.endToEnd), runs: ns.endToEnd },
    { label: 'scans: walk + CRC split (before)', value: median(ns.scanTwice), runs: ns.scanTwice },
    ...(ns.scanOnce.length > 0 ? [{ label: 'scan: one CRC split (after)', value: median(ns.scanOnce), runs: ns.scanOnce }] : []),
  ] }],
});
