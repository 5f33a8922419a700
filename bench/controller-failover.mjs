#!/usr/bin/env node
// Leader failover of many partitions (issue 11): 3 broker processes, a 3-node ZooKeeper ensemble, one topic
// with PARTITIONS partitions and replication factor 3. kill -9 of a broker that is not the controller; then:
//  - when each of its partitions has a live leader again in a surviving broker's Metadata (clients' view);
//  - from the controller's log: when it saw the broker change (ZooKeeper session expiry) and where that
//    event's time went (ZooKeeper calls by method vs its own work), plus the events that followed.
// Target: every partition has a leader within zookeeper.session.timeout.ms + 2 s. One kill per run (run it
// several times): the topic is created in steps of STEP partitions and the cluster left to settle first, since
// a broker creating hundreds of logs at once can stall its own ZooKeeper session (a separate issue).
//
//   npm run build && node bench/controller-failover.mjs [--json <file>] [--full]
//   env: PARTITIONS=300 (--full: 2000) STEP=250 SESSION_MS=6000 ZK=3 SETTLE_MS=3000 (--full: 10000)
//   RESTART=0: no restart of the killed broker afterwards (it reloads its logs with its ZooKeeper session open).
//   PROFILE=1: every broker runs with --cpu-prof; PROFILE_DIR (default ./profiles) gets broker-<id>.cpuprofile of each
//   broker that stops cleanly at the end (the controller's, the other survivor's, the restarted victim's).
// Every broker preloads bench/loop-monitor.mjs: the event-loop delay per phase (creation, failover, restart) and the
// ZooKeeper sessions each broker renewed (expired or presumed lost) in it are printed at the end.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, ConnectionPool, KafkaClient } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { Metadata } from '@gregor/protocol';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { cpuProfileArgs, median, PROFILE_DIR, root, sleep, startBench } from './lib/bench.mjs';

const ROUNDS = 1;
const TOPIC = 'failover';
const b = await startBench('controller-failover', { env: { PARTITIONS: [300, 2000], SESSION_MS: 6000, STEP: 250, SETTLE_MS: [3000, 10_000], ZK: 3 } });
const { PARTITIONS, SESSION_MS, STEP, SETTLE_MS, ZK } = b.params;
// The script reads the controller's JSON log lines (events that took long, with their ZooKeeper calls).
process.env.LOG_LEVEL = 'info';
process.env.LOG_FORMAT = 'json';
// Inherited by the broker processes (not by ZooKeeper's JVMs): each writes its event-loop delay on SIGUSR2.
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${join(root, 'bench/loop-monitor.mjs')}`.trim();
process.env.LOOP_MONITOR_DIR = b.work;

// --- cluster -------------------------------------------------------------------------------
const { ensemble, brokers, bootstrap } = await b.cluster({ brokers: 3, zookeepers: ZK, props: {
  'zookeeper.session.timeout.ms': String(SESSION_MS), 'replica.fetch.wait.max.ms': '500',
  'auto.leader.rebalance.enable': 'false', 'controlled.shutdown.retry.backoff.ms': '200',
}, nodeArgs: (id) => cpuProfileArgs(`broker-${id}`) });
const logFile = (id) => brokers.get(id).logFile;
const loopFile = (pid) => join(b.work, `event-loop-${pid}.jsonl`);

function readLines(file) {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
/** Each running broker's event-loop delay since the previous call (bench/loop-monitor.mjs answers SIGUSR2). */
async function loopDelays() {
  const out = new Map();
  const live = [...brokers].filter(([, br]) => br.isRunning());
  const before = new Map(live.map(([id, br]) => [id, readLines(loopFile(br.pid)).length]));
  for (const [, br] of live) process.kill(br.pid, 'SIGUSR2');
  for (let i = 0; i < 100 && live.some(([id, br]) => readLines(loopFile(br.pid)).length === before.get(id)); i++) await sleep(50);
  for (const [id, br] of live) {
    const lines = readLines(loopFile(br.pid));
    if (lines.length > before.get(id)) out.set(id, JSON.parse(lines.at(-1)));
  }
  return out;
}
/** ZooKeeper sessions each broker renewed (expired or presumed lost) from `since` on. */
function sessionsLost(since) {
  const out = {};
  for (const id of brokers.keys()) {
    out[id] = readLines(logFile(id)).filter((line) => {
      if (!line.includes('ZooKeeper session renewal')) return false;
      try {
        return JSON.parse(line).time >= since;
      } catch {
        return false; // a line cut by a kill
      }
    }).length;
  }
  return out;
}
const phases = [];

/** The controller's JSON log lines at or after `since` (epoch ms). */
function controllerLog(id, since) {
  const out = [];
  for (const line of readFileSync(logFile(id), 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const o = JSON.parse(line);
      if (o.time >= since && o.component === 'controller') out.push(o);
    } catch {
      // a line cut by the kill
    }
  }
  return out;
}

const pool = new ConnectionPool({ clientId: 'failover-bench', requestTimeoutMs: 10_000 });
async function metadataFrom(id) {
  const c = await pool.connect(id, { host: '127.0.0.1', port: brokers.get(id).port });
  const md = await c.send(Metadata, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
  return md.topics[0]?.partitions ?? [];
}

const zkClient = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10_000, logger: silentLogger() });
b.onCleanup(() => zkClient.close());
const zk = new KafkaZkClient(zkClient);
const client = new KafkaClient({ brokers: bootstrap });
b.onCleanup(() => client.close());
b.onCleanup(() => pool.close());
const rounds = [];
{
  await loopDelays(); // from here on
  const created = Date.now();
  const admin = new Admin(client);
  for (let count = Math.min(STEP, PARTITIONS); ; count = Math.min(count + STEP, PARTITIONS)) {
    const [r] = count <= STEP
      ? await admin.createTopics([{ name: TOPIC, numPartitions: count, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }], { timeoutMs: 60_000 })
      : await admin.createPartitions([{ topic: TOPIC, count }], { timeoutMs: 60_000 });
    if (r.errorCode !== 0) throw new Error(`create ${count}: ${r.errorMessage}`);
    for (let i = 0; ; i++) {
      const ps = await metadataFrom(1).catch(() => []);
      if (ps.length === count && ps.every((p) => p.leaderId >= 0 && p.isrNodes.length === 3)) break;
      if (i > 600) throw new Error('topic did not come online with full ISRs');
      await sleep(200);
    }
    if (count === PARTITIONS) break;
  }
  console.log(`topic with ${PARTITIONS} partitions online with full ISRs after ${Date.now() - created} ms; settling ${SETTLE_MS} ms`);
  phases.push({ phase: `create ${PARTITIONS} partitions, ${STEP} per request`, loop: await loopDelays(), lost: sessionsLost(created) });
  await sleep(SETTLE_MS);
  await loopDelays();

  for (let round = 1; round <= ROUNDS; round++) {
    const controller = await zk.getControllerId();
    const before = await metadataFrom(controller);
    // The non-controller broker leading the most partitions.
    const led = (id) => before.filter((p) => p.leaderId === id).map((p) => p.partitionIndex);
    const victim = [1, 2, 3].filter((id) => id !== controller).sort((a, b) => led(b).length - led(a).length)[0];
    const moved = new Set(led(victim));
    const observer = [1, 2, 3].find((id) => id !== victim && id !== controller) ?? controller;
    const t0 = Date.now();
    b.sample(); // the victim's last CPU figure
    void brokers.get(victim).kill();
    let firstMs = null;
    let allMs = null;
    while (Date.now() - t0 < 60_000) {
      const ps = await metadataFrom(observer).catch(() => null);
      if (ps) {
        const done = ps.filter((p) => moved.has(p.partitionIndex) && p.leaderId >= 0 && p.leaderId !== victim).length;
        if (done > 0 && firstMs === null) firstMs = Date.now() - t0;
        if (done === moved.size) {
          allMs = Date.now() - t0;
          break;
        }
      }
      await sleep(50);
    }
    await sleep(500); // the controller's log lines are written asynchronously
    phases.push({ phase: `kill -9 of broker ${victim} until every partition is led`, loop: await loopDelays(), lost: sessionsLost(t0) });
    const lines = controllerLog(controller, t0);
    const change = lines.find((o) => o.msg === 'broker change');
    const slow = lines.filter((o) => o.msg === 'controller event took long');
    const brokerChange = slow.find((o) => o.event === 'BrokerChange');
    rounds.push({ round, victim, controller, partitions: moved.size, firstMs, allMs, detectedMs: change ? change.time - t0 : null, brokerChange, slow });

    console.log(`round ${round}: kill -9 broker ${victim} (leader of ${moved.size} partitions); controller ${controller}`);
    console.log(`  controller saw the broker change after ${change ? change.time - t0 : '?'} ms (session expiry)`);
    if (brokerChange) {
      const byCost = Object.entries(brokerChange.zk).sort((a, b) => b[1].ms - a[1].ms);
      console.log(`  BrokerChange event: ${brokerChange.ms} ms wall; ${brokerChange.zkCalls} ZooKeeper calls with ${brokerChange.zkMs} ms summed latency (pipelined calls overlap)`);
      for (const [m, c] of byCost) console.log(`    ${m.padEnd(28)} ${String(c.calls).padStart(5)} calls ${String(c.ms).padStart(6)} ms  (${(c.ms / c.calls).toFixed(2)} ms/call)`);
    }
    for (const o of slow.filter((x) => x !== brokerChange)) console.log(`  also ${o.event}: ${o.ms} ms (${o.zkCalls} ZooKeeper calls, ${o.zkMs} ms summed latency)`);
    console.log(`  first partition led again after ${firstMs} ms; all ${moved.size} after ${allMs ?? 'NOT within 60 s'} ms (target ${SESSION_MS + 2000} ms)`);

    if (process.env.RESTART !== '0') {
      // The killed broker restarts: it loads its logs (an unclean stop: recovery) with its ZooKeeper session open.
      const r0 = Date.now();
      let listening = null;
      try {
        await b.start(brokers.get(victim));
        listening = Date.now() - r0;
      } catch (err) {
        console.log(`  restart of broker ${victim} failed: ${err.message}`);
      }
      let inIsr = null;
      while (listening !== null && Date.now() - r0 < 120_000) {
        const ps = await metadataFrom(observer).catch(() => null);
        if (ps && ps.every((p) => p.isrNodes.includes(victim))) {
          inIsr = Date.now() - r0;
          break;
        }
        await sleep(200);
      }
      await sleep(1000);
      const loaded = readLines(logFile(victim)).map((l) => { try { return JSON.parse(l); } catch { return null; } }).filter((o) => o && o.time >= r0 && o.msg === 'loaded logs');
      phases.push({ phase: `restart of broker ${victim} until back in every ISR`, loop: await loopDelays(), lost: sessionsLost(r0) });
      rounds.at(-1).restart = { listeningMs: listening, inIsrMs: inIsr, loadedLogsMs: loaded.map((o) => o.ms) };
      console.log(`  restart of broker ${victim}: loaded ${loaded.map((o) => `${o.logs} logs in ${o.ms} ms`).join(', ')}; listening after ${listening ?? '-'} ms; back in every ISR after ${inIsr ?? 'NOT within 120 s'} ms`);
    }

  }
}
await b.close();

console.log(`\ngregor, 3 brokers, RF 3, ${PARTITIONS} partitions, zookeeper.session.timeout.ms=${SESSION_MS}, ${ZK}-node ZooKeeper`);
const all = rounds.map((r) => r.allMs).filter((x) => x !== null);
if (all.length) console.log(`  every partition led again after: median ${median(all)} ms, worst ${Math.max(...all)} ms over ${rounds.length} rounds [${all.join(', ')}]`);
const events = rounds.map((r) => r.brokerChange?.ms).filter((x) => x !== undefined);
if (events.length) console.log(`  controller BrokerChange handling: [${events.join(', ')}] ms`);
for (const p of phases) {
  console.log(`  ${p.phase}: event-loop delay ${[...p.loop].map(([id, d]) => `broker ${id} p99 ${d.p99} ms, max ${d.max} ms`).join('; ')}`);
  console.log(`    ZooKeeper sessions lost (renewed) per broker: ${JSON.stringify(p.lost)}`);
}
if (PROFILE_DIR) console.log(`  CPU profiles in ${PROFILE_DIR}: broker-<id>.cpuprofile; the controller's is broker-${rounds.at(-1)?.controller ?? '?'}.cpuprofile`);
await b.finish({ rounds: rounds.map(({ slow, ...r }) => ({ ...r, slowEvents: slow.map((o) => ({ event: o.event, ms: o.ms, zkCalls: o.zkCalls, zkMs: o.zkMs })) })), phases: phases.map((p) => ({ ...p, loop: Object.fromEntries(p.loop) })) }, {
  charts: rounds.map((r) => ({ id: `controller-failover-${r.round}`, title: `kill -9 of a broker leading ${r.partitions} of ${PARTITIONS} partitions (session ${SESSION_MS} ms)`, unit: 'ms', bars: [
    { label: 'controller sees the broker change', value: r.detectedMs ?? 0 },
    { label: 'BrokerChange event', value: r.brokerChange?.ms ?? 0 },
    { label: 'first partition led again', value: r.firstMs ?? 0 },
    { label: 'all partitions led again', value: r.allMs ?? 0 },
  ] })),
});
process.exit(0);
