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
//   npm run build && node bench/controller-failover.mjs     env: PARTITIONS=2000 STEP=250 SESSION_MS=6000 ZK=3 SETTLE_MS=10000
//   RESTART=0: no restart of the killed broker afterwards. Each broker preloads bench/loop-monitor.mjs (event-loop delay per phase).
//   PROFILE=1 KEEP=1: the brokers run with --cpu-prof (profiles under the kept folder, written when the survivors stop)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PARTITIONS = Number(process.env.PARTITIONS ?? 2000);
const SESSION_MS = Number(process.env.SESSION_MS ?? 6000);
const ROUNDS = 1;
const STEP = Number(process.env.STEP ?? 250);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 10_000);
const ZK = Number(process.env.ZK ?? 3);
const TOPIC = 'failover';
const work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), 'gregor-bench-failover-'));
const { ZooKeeperEnsemble, freePorts } = await import(join(root, 'packages/launcher/dist/index.js'));
const { Admin, Connection, KafkaClient } = await import(join(root, 'packages/client/dist/index.js'));
const { Metadata } = await import(join(root, 'packages/protocol/dist/index.js'));
const { KafkaZkClient, ZkClient } = await import(join(root, 'packages/zookeeper/dist/index.js'));
const { silentLogger } = await import(join(root, 'packages/common/dist/index.js'));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function waitPort(port, ms = 60_000) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve()));
      s.on('error', () => (s.destroy(), Date.now() > deadline ? reject(new Error(`port ${port}`)) : setTimeout(attempt, 100)));
    };
    attempt();
  });
}

// --- cluster -------------------------------------------------------------------------------
const ensemble = await ZooKeeperEnsemble.onFreePorts({ dir: join(work, 'zk'), size: ZK, tickTime: 500 });
await ensemble.start();
const ports = await freePorts(3);
const brokers = new Map();
const logFile = (id) => join(work, `broker-${id}`, 'broker.log');
const loopFile = (id) => join(work, `broker-${id}`, 'event-loop.jsonl');

/** Each live broker's event-loop delay since the previous call (bench/loop-monitor.mjs answers SIGUSR2). */
async function loopDelays() {
  const out = new Map();
  const live = [...brokers].filter(([, c]) => c.exitCode === null && c.signalCode === null);
  const before = new Map(live.map(([id]) => [id, readLines(loopFile(id)).length]));
  for (const [, c] of live) c.kill('SIGUSR2');
  for (let i = 0; i < 100 && live.some(([id]) => readLines(loopFile(id)).length === before.get(id)); i++) await sleep(50);
  for (const [id] of live) {
    const last = readLines(loopFile(id)).at(-1);
    if (last && readLines(loopFile(id)).length > before.get(id)) out.set(id, JSON.parse(last));
  }
  return out;
}
function readLines(file) {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
/** ZooKeeper sessions each broker renewed (expired or presumed lost) between two times. */
function sessionsLost(since, until = Date.now()) {
  const out = {};
  for (const id of [1, 2, 3]) {
    let n = 0;
    for (const line of readLines(logFile(id))) {
      if (!line.includes('ZooKeeper session renewal')) continue;
      try {
        const o = JSON.parse(line);
        if (o.time >= since && o.time <= until) n++;
      } catch {
        // a line cut by a kill
      }
    }
    out[id] = n;
  }
  return out;
}
const fmtLoop = (m) => [...m].map(([id, d]) => `broker ${id} p99 ${d.p99} ms, max ${d.max} ms`).join('; ');
const phases = [];
function startBroker(id) {
  const dir = join(work, `broker-${id}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'server.properties'), [
    `broker.id=${id}`, `listeners=PLAINTEXT://127.0.0.1:${ports[id - 1]}`, `log.dirs=${dir}/data`,
    `zookeeper.connect=${ensemble.connectString}`, `zookeeper.session.timeout.ms=${SESSION_MS}`, 'http.port=-1',
    'replica.fetch.wait.max.ms=500', 'auto.leader.rebalance.enable=false', 'controlled.shutdown.retry.backoff.ms=200',
    ...(process.env.EXTRA_PROPS ?? '').split(',').filter(Boolean),
  ].join('\n'));
  const profile = process.env.PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${join(work, 'profiles')}`] : [];
  const monitor = ['--import', join(root, 'bench/loop-monitor.mjs')];
  const child = spawn(process.execPath, [...profile, ...monitor, join(root, 'packages/cli/dist/main.js'), 'broker', '--config', join(dir, 'server.properties')], {
    stdio: ['ignore', 'ignore', openSync(logFile(id), 'a')],
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', LOOP_MONITOR_FILE: loopFile(id) },
  });
  brokers.set(id, child);
  return waitPort(ports[id - 1]);
}

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

const conns = new Map();
async function metadataFrom(id) {
  let c = conns.get(id);
  if (!c) {
    c = new Connection({ host: '127.0.0.1', port: ports[id - 1], clientId: 'failover-bench', requestTimeoutMs: 10_000 });
    await c.connect();
    conns.set(id, c);
  }
  const md = await c.send(Metadata, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
  return md.topics[0]?.partitions ?? [];
}

await Promise.all([1, 2, 3].map(startBroker));
const bootstrap = ports.map((p) => `127.0.0.1:${p}`).join(',');
const zkClient = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10_000, logger: silentLogger() });
const zk = new KafkaZkClient(zkClient);
const client = new KafkaClient({ brokers: bootstrap });
const rounds = [];
try {
  await sleep(1000); // ZooKeeper sessions, controller election
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
    brokers.get(victim).kill('SIGKILL');
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

    // The killed broker restarts: it loads its PARTITIONS logs (unclean shutdown: recovery) with its ZooKeeper session open.
    if (process.env.RESTART !== '0') {
      const r0 = Date.now();
      await startBroker(victim);
      const listening = Date.now() - r0;
      let inIsr = null;
      while (Date.now() - r0 < 120_000) {
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
      console.log(`  restart of broker ${victim}: loaded ${loaded.map((o) => `${o.logs} logs in ${o.ms} ms`).join(', ')}; listening after ${listening} ms; back in every ISR after ${inIsr ?? 'NOT within 120 s'} ms`);
    }

  }
} finally {
  for (const c of conns.values()) await c.close().catch(() => {});
  await client.close().catch(() => {});
  await zkClient.close().catch(() => {});
  if (process.env.PROFILE) {
    // A clean exit writes the survivors' CPU profiles (SIGKILL would lose them).
    await Promise.all([...brokers.values()].filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => {
      const timer = setTimeout(() => (c.kill('SIGKILL'), r()), 30_000);
      c.once('exit', () => (clearTimeout(timer), r()));
      c.kill('SIGTERM');
    })));
  }
  for (const child of brokers.values()) child.kill('SIGKILL');
  await ensemble.kill().catch(() => {});
}

console.log(`\ngregor, 3 brokers, RF 3, ${PARTITIONS} partitions, zookeeper.session.timeout.ms=${SESSION_MS}, ${ZK}-node ZooKeeper`);
const all = rounds.map((r) => r.allMs).filter((x) => x !== null);
if (all.length) console.log(`  every partition led again after: median ${median(all)} ms, worst ${Math.max(...all)} ms over ${rounds.length} rounds [${all.join(', ')}]`);
const events = rounds.map((r) => r.brokerChange?.ms).filter((x) => x !== undefined);
if (events.length) console.log(`  controller BrokerChange handling: [${events.join(', ')}] ms`);
for (const p of phases) {
  console.log(`  ${p.phase}: event-loop delay ${fmtLoop(p.loop)}`);
  console.log(`    ZooKeeper sessions lost (renewed) per broker: ${JSON.stringify(p.lost)}`);
}
console.log(`  load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
else console.log(`  logs kept in ${work}`);
process.exit(0);
