// `node bench/event-loop-stalls.mjs --combined`: issue 11's proof for "no self-inflicted session loss" in one window,
// end to end. A 3-node ZooKeeper ensemble and 3 broker processes; broker T (a non-controller) holds a SIZE_MB log of
// 1 KB records over KEYS keys (cyclic, RF 1, SEGMENT_MB segments), written with cleanup.policy=delete. Another topic of
// PARTITIONS partitions (RF 3) is led by broker O, with T second in every assignment. Then:
//  1. the log's cleanup.policy becomes compact (IncrementalAlterConfigs); T's cleaner takes it at its next tick (every
//     15 s), which the script sees as T's CPU time climbing;
//  2. at that moment, a controlled shutdown of O (SIGTERM): the controller moves all PARTITIONS leaders onto T
//     (one LeaderAndIsr, a new leader epoch each) while T is cleaning;
//  3. the window ends when T leads every partition and its cleaner logged `log cleaned` for the log.
// Figures: T's event-loop delay (p50, p99, max) over the whole window (bench/loop-monitor.mjs, preloaded, read on
// SIGUSR2), the same per 100 ms (to place the stalls against the leadership change and the cleaning), and every
// broker's ZooKeeper session renewals (session lost: expired or presumed lost) and watchdog trips in the window.
//
//   npm run build && node bench/event-loop-stalls.mjs --combined [--full] [--json <file>]
//   env: SIZE_MB=256 (--full: 1024) KEYS=200000 PARTITIONS=500 SEGMENT_MB=64 SESSION_MS=6000 ZK=3 SETTLE_MS=3000
//   LEAD_DELAY_MS=0: how long after the cleaning starts the controlled shutdown begins
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, ConnectionPool, KafkaClient } from '@gregor/client';
import { Metadata } from '@gregor/protocol';
import { kcatProduceArgs, linesFile, pct, procCpuSeconds, root, run, sleep, startBench } from './bench.mjs';

const COMPACTED = 'compacted';
const MOVED = 'moved';

export async function combined() {
  const b = await startBench('event-loop-stalls-combined', { env: { SIZE_MB: [256, 1024], KEYS: 200_000, PARTITIONS: 500, SEGMENT_MB: 64, SESSION_MS: 6000, ZK: 3, SETTLE_MS: 3000, LEAD_DELAY_MS: 0 } });
  const { SIZE_MB, KEYS, PARTITIONS, SEGMENT_MB, SESSION_MS, ZK, SETTLE_MS, LEAD_DELAY_MS } = b.params;
  // JSON log lines at info: the cleaner's `log cleaned`, `applied LeaderAndIsr`, ZooKeeper session renewals.
  process.env.LOG_LEVEL = 'info';
  process.env.LOG_FORMAT = 'json';
  // Inherited by the brokers (not by ZooKeeper's JVMs): event-loop delay on SIGUSR2, and every 100 ms.
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${join(root, 'bench/loop-monitor.mjs')}`.trim();
  process.env.LOOP_MONITOR_DIR = b.work;
  process.env.LOOP_MONITOR_INTERVAL_MS = '100';

  const { brokers, bootstrap } = await b.cluster({ brokers: 3, zookeepers: ZK, props: {
    'zookeeper.session.timeout.ms': String(SESSION_MS), 'replica.fetch.wait.max.ms': '500',
    'auto.leader.rebalance.enable': 'false', 'controlled.shutdown.retry.backoff.ms': '200',
  } });
  const client = new KafkaClient({ brokers: bootstrap });
  b.onCleanup(() => client.close());
  const admin = new Admin(client);
  const pool = new ConnectionPool({ clientId: 'stalls-bench', requestTimeoutMs: 10_000 });
  b.onCleanup(() => pool.close());
  async function partitionsFrom(id, topic) {
    const c = await pool.connect(id, { host: '127.0.0.1', port: brokers.get(id).port });
    const md = await c.send(Metadata, { topics: [{ name: topic }], allowAutoTopicCreation: false });
    return md.topics[0]?.partitions ?? [];
  }

  // Roles: C the controller, T (target) and O (the one shut down) the other two.
  let C = -1;
  for (let i = 0; i < 100 && ![1, 2, 3].includes(C); i++) {
    C = (await admin.describeCluster().catch(() => null))?.controllerId ?? -1;
    if (![1, 2, 3].includes(C)) await sleep(100);
  }
  if (![1, 2, 3].includes(C)) throw new Error('no controller elected');
  const [T, O] = [1, 2, 3].filter((id) => id !== C);
  console.log(`controller ${C}; broker ${T} cleans and receives the leaders; broker ${O} leads them, then shuts down`);

  // --- the log to clean, on T ------------------------------------------------------------------------------
  const [made] = await admin.createTopics([{ name: COMPACTED, numPartitions: -1, replicationFactor: -1, replicaAssignment: { 0: [T] }, configs: {
    'cleanup.policy': 'delete', 'retention.ms': '-1', 'retention.bytes': '-1', 'segment.bytes': String(SEGMENT_MB << 20),
  } }]);
  if (made.errorCode !== 0) throw new Error(`create ${COMPACTED}: ${made.errorMessage}`);
  await admin.waitForLeaders([COMPACTED], 30_000);
  const records = Math.ceil((SIZE_MB << 20) / 1030); // ~1 KB per record in its batch
  const t0 = Date.now();
  await produceKeyed(brokers.get(T).bootstrapServer, records, KEYS);
  const [{ offset: end }] = [...(await admin.listPartitionOffsets(COMPACTED, [{ partition: 0, timestamp: -1 }])).values()];
  if (end !== records) throw new Error(`${COMPACTED} has ${end} records, ${records} produced`);
  console.log(`${COMPACTED}: ${records} records of 1 KB (${KEYS} keys) produced in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // --- the partitions that move: O leads, T is next in every assignment --------------------------------------
  const assignment = Object.fromEntries(Array.from({ length: PARTITIONS }, (_, i) => [i, [O, T, C]]));
  const [moved] = await admin.createTopics([{ name: MOVED, numPartitions: -1, replicationFactor: -1, replicaAssignment: assignment }], { timeoutMs: 60_000 });
  if (moved.errorCode !== 0) throw new Error(`create ${MOVED}: ${moved.errorMessage}`);
  for (let i = 0; ; i++) {
    const ps = await partitionsFrom(C, MOVED).catch(() => []);
    if (ps.length === PARTITIONS && ps.every((p) => p.leaderId === O && p.isrNodes.length === 3)) break;
    if (i > 600) throw new Error(`${MOVED} did not come online with full ISRs led by broker ${O}`);
    await sleep(200);
  }
  // Records in (nearly) every partition, so each new leader epoch is a new leader-epoch-checkpoint entry on T.
  await run('kcat', kcatProduceArgs(bootstrap, MOVED, await linesFile(join(b.work, 'moved.txt'), PARTITIONS * 10), 'acks=all'));
  console.log(`${MOVED}: ${PARTITIONS} partitions led by broker ${O} with full ISRs, ${PARTITIONS * 10} records; settling ${SETTLE_MS} ms`);
  await sleep(SETTLE_MS);

  // --- the window -----------------------------------------------------------------------------------------
  const target = brokers.get(T);
  const altered = Date.now();
  const [r] = await admin.incrementalAlterConfigs([{ resource: { type: 'topic', name: COMPACTED }, ops: [{ name: 'cleanup.policy', op: 'set', value: 'compact' }] }]);
  if (r.error) throw new Error(`alter ${COMPACTED}: ${r.error.message}`);
  // T is idle until its cleaner's next tick: the cleaning pass shows as T using most of a core.
  let cpu = procCpuSeconds(target.pid);
  for (let busy = 0; busy < 2; ) {
    await sleep(100);
    const now = procCpuSeconds(target.pid);
    busy = now - cpu >= 0.04 ? busy + 1 : 0; // ≥ 40% of a core twice in a row (idle: a few %)
    cpu = now;
    if (Date.now() - altered > 40_000) throw new Error(`broker ${T} did not start cleaning within 40 s of the config change`);
  }
  const w0 = Date.now();
  await loopDelay(T); // from here on
  if (LEAD_DELAY_MS > 0) await sleep(LEAD_DELAY_MS); // the leaders land later in the pass (its writing half)
  const leadStart = Date.now() - w0;
  void brokers.get(O).stop(); // SIGTERM: controlled shutdown
  let ledMs = null;
  while (Date.now() - w0 < 120_000) {
    const ps = await partitionsFrom(T, MOVED).catch(() => null); // T's own view: after it applied the LeaderAndIsr
    if (ps && ps.length === PARTITIONS && ps.every((p) => p.leaderId === T)) {
      ledMs = Date.now() - w0;
      break;
    }
    await sleep(50);
  }
  let cleaned = null;
  while (Date.now() - w0 < 600_000 && !(cleaned = logLines(T, altered).find((o) => o.msg === 'log cleaned' && o.topic === COMPACTED))) await sleep(100);
  await sleep(300);
  const w1 = Date.now();
  const loop = await loopDelay(T);
  for (let i = 0; i < 100 && brokers.get(O).isRunning(); i++) await sleep(100);
  // A connection lost in the window is presumed a lost session only a session timeout later: wait for that line too.
  await sleep(SESSION_MS);

  // --- what the window held --------------------------------------------------------------------------------
  const cleanStart = cleaned ? cleaned.time - cleaned.ms - w0 : null;
  const cleanEnd = cleaned ? cleaned.time - w0 : null;
  const applied = logLines(T, w0).filter((o) => o.msg === 'applied LeaderAndIsr').map((o) => ({ atMs: o.time - w0, partitions: o.partitions, becameLeader: o.becameLeader, ms: o.ms }));
  const shutdownOk = logLines(O, w0).find((o) => o.msg === 'controlled shutdown succeeded');
  const lost = {};
  const watchdog = {};
  for (const id of brokers.keys()) {
    const lines = logLines(id, w0);
    lost[id] = lines.filter((o) => o.msg === 'ZooKeeper session renewal').length;
    watchdog[id] = lines.filter((o) => o.msg?.startsWith('ZooKeeper watchdog')).length;
  }
  // Per 100 ms of T's loop: the slices that held it ≥ 50 ms, placed against the leadership change and the cleaning.
  // Up to the slice that holds the SIGUSR2 read (written ≤ 100 ms after it; the waits below are longer).
  const series = readJsonLines(join(b.work, `event-loop-${target.pid}.jsonl.series.jsonl`)).filter((s) => s.time > w0 && s.time - 100 <= w1);
  // A slice's line is written at its end: it covers [at - 100, at].
  const phaseOf = (at) => [at >= leadStart && at - 100 <= (ledMs ?? Infinity) ? 'leadership moving' : null, cleanEnd === null || (at >= cleanStart && at <= cleanEnd + 100) ? 'cleaning' : null].filter(Boolean).join(' + ') || 'neither';
  const stalls = series.filter((s) => s.max >= 50).map((s) => ({ atMs: s.time - w0, maxMs: s.max, during: phaseOf(s.time - w0) }));
  const overlapMs = cleaned && ledMs !== null ? Math.max(0, Math.min(cleanEnd, ledMs) - Math.max(cleanStart, leadStart)) : null;
  const inOverlap = series.filter((s) => s.time - w0 >= leadStart && s.time - w0 - 100 <= (ledMs ?? 0));
  const overlapMax = inOverlap.length ? Math.max(...inOverlap.map((s) => s.max)) : null;

  console.log(`\ngregor, 3 brokers, ${ZK}-node ZooKeeper, zookeeper.session.timeout.ms=${SESSION_MS}; broker ${T}:`);
  console.log(`  cleaning ${SIZE_MB} MB (${records} records, ${KEYS} keys, ${SEGMENT_MB} MB segments): ` +
    (cleaned ? `pass ${cleaned.ms} ms, from ${cleanStart} to ${cleanEnd} ms into the window; ${cleaned.recordsBefore} -> ${cleaned.recordsAfter} records, ${Math.round(cleaned.bytesAfter / 1048576)} MB kept` : 'NOT logged within the window'));
  console.log(`  controlled shutdown of broker ${O} from +${leadStart} ms: ${shutdownOk ? 'succeeded' : 'NOT confirmed'}; all ${PARTITIONS} leaders on broker ${T} after ${ledMs ?? 'NOT within 120 s'} ms` +
    (applied.length ? `; LeaderAndIsr applied in ${applied.map((a) => `${a.partitions} partitions (${a.becameLeader} leader) ${a.ms} ms at +${a.atMs} ms`).join(', ')}` : ''));
  const appliedInside = cleaned && applied.length > 0 ? applied.every((a) => a.atMs >= cleanStart && a.atMs <= cleanEnd) : null;
  console.log(`  overlap of the leadership change (controlled shutdown to broker ${T} leading all) and the cleaning pass: ${overlapMs ?? '?'} ms; ` +
    `LeaderAndIsr applied on broker ${T} inside the pass: ${appliedInside === null ? '? (no applied LeaderAndIsr line)' : appliedInside ? 'yes' : 'NO'}`);
  const rows = [
    ['window (cleaning + leadership change)', `${w1 - w0} ms`],
    [`broker ${T} event-loop delay p50`, `${loop?.p50 ?? '?'} ms`],
    [`broker ${T} event-loop delay p99`, `${loop?.p99 ?? '?'} ms (target < 50 ms)`],
    [`broker ${T} event-loop delay max`, `${loop?.max ?? '?'} ms`],
    [`worst 100 ms slice while leaders moved`, `${overlapMax ?? '?'} ms`],
    [`100 ms slices of broker ${T} with a delay ≥ 50 ms`, `${stalls.length} of ${series.length}`],
    ['ZooKeeper sessions lost (renewed) per broker, window + session timeout', JSON.stringify(lost)],
    ['ZooKeeper watchdog trips per broker', JSON.stringify(watchdog)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n| ${'measure'.padEnd(width)} | value |\n|${'-'.repeat(width + 2)}|---|`);
  for (const [k, v] of rows) console.log(`| ${k.padEnd(width)} | ${v} |`);
  if (stalls.length) console.log(`  slices ≥ 50 ms: ${stalls.map((s) => `+${s.atMs} ms ${s.maxMs} ms (${s.during})`).join(', ')}`);
  const worst = [...series].sort((x, y) => y.max - x.max).slice(0, 3).map((s) => ({ atMs: s.time - w0, maxMs: s.max, during: phaseOf(s.time - w0) }));
  console.log(`  worst 100 ms slices: ${worst.map((s) => `+${s.atMs} ms ${s.maxMs} ms (${s.during})`).join(', ')}`);
  console.log(`  per-100 ms slice maxima: p50 ${pct(series.map((s) => s.max), 50) ?? '-'} ms, p99 ${pct(series.map((s) => s.max), 99) ?? '-'} ms`);

  await b.finish({
    target: T, shutDown: O, controller: C, records, windowMs: w1 - w0, leadStartMs: leadStart, ledMs, leaderAndIsr: applied,
    cleaning: cleaned ? { ms: cleaned.ms, startMs: cleanStart, endMs: cleanEnd, recordsBefore: cleaned.recordsBefore, recordsAfter: cleaned.recordsAfter, bytesBefore: cleaned.bytesBefore, bytesAfter: cleaned.bytesAfter } : null,
    overlapMs, appliedInside, leadDelayMs: LEAD_DELAY_MS, loop, overlapSliceMaxMs: overlapMax, stalls, worstSlices: worst, sessionsLost: lost, watchdogTrips: watchdog,
  }, {
    charts: [{ id: 'event-loop-stalls-combined', title: `Broker cleaning ${SIZE_MB} MB while ${PARTITIONS} leaders move onto it: event-loop delay`, unit: 'ms', bars: [
      { label: 'p50', value: loop?.p50 ?? 0 }, { label: 'p99', value: loop?.p99 ?? 0 }, { label: 'max', value: loop?.max ?? 0 },
    ] }],
  });

  // --- helpers --------------------------------------------------------------------------------------------
  /** The broker's JSON log lines at or after `since` (epoch ms). */
  function logLines(id, since) {
    return readJsonLines(brokers.get(id).logFile).filter((o) => o.time >= since);
  }
  /** Broker `id`'s event-loop delay since the previous call (bench/loop-monitor.mjs answers SIGUSR2). */
  async function loopDelay(id) {
    const file = join(b.work, `event-loop-${brokers.get(id).pid}.jsonl`);
    const before = readJsonLines(file).length;
    process.kill(brokers.get(id).pid, 'SIGUSR2');
    for (let i = 0; i < 100 && readJsonLines(file).length === before; i++) await sleep(50);
    const lines = readJsonLines(file);
    return lines.length > before ? lines.at(-1) : null;
  }
}

function readJsonLines(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a line being written
    }
  }
  return out;
}

/** kcat producing `n` records of ~1 KB keyed key-0..key-(keys-1) in turn, streamed into its stdin (acks=1). */
async function produceKeyed(brokerList, n, keys) {
  // kcatProduceArgs without its `-l <file>`: kcat reads the lines from stdin (a socket, which -l /dev/stdin cannot open).
  const args = kcatProduceArgs(brokerList, COMPACTED, '', 'acks=1').slice(0, -1).filter((a) => a !== '-l');
  const child = spawn('kcat', ['-K', ':', ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`kcat exited ${code}: ${err.slice(-500)}`))));
  });
  const value = 'x'.repeat(1000);
  for (let i = 0; i < n; ) {
    let chunk = '';
    for (const stop = Math.min(n, i + 1000); i < stop; i++) chunk += `key-${i % keys}:${value}\n`;
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  await exited;
}
