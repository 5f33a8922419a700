#!/usr/bin/env node
// Three brokers with replication factor 3 on this machine (processes, a 3-node ZooKeeper ensemble):
//  1. produce throughput with kcat, acks=all, N records of 100 bytes, min.insync.replicas=2;
//  2. end-to-end latency (send with acks=all -> received by a consumer) at a fixed moderate rate;
//  3. unavailability after kill -9 of a partition leader, and after a controlled shutdown (SIGTERM):
//     time from the fault to the first successful acks=all write on that partition.
//
//   npm run build && node bench/replicated.mjs     env: N=1000000 PARTITIONS=3 RATE=1000 SECONDS=10 SESSION_MS=6000
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.N ?? 1_000_000);
const PARTITIONS = Number(process.env.PARTITIONS ?? 3);
const RATE = Number(process.env.RATE ?? 1000);
const SECONDS = Number(process.env.SECONDS ?? 10);
const SESSION_MS = Number(process.env.SESSION_MS ?? 6000);
const PHASES = new Set((process.env.PHASES ?? 'throughput,latency,failover').split(','));
const work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), 'gregor-bench-rf3-'));
const { ZooKeeperEnsemble, freePorts } = await import(join(root, 'packages/launcher/dist/index.js'));
const { Admin, KafkaClient, Producer, Consumer } = await import(join(root, 'packages/client/dist/index.js'));
const { KafkaZkClient, ZkClient } = await import(join(root, 'packages/zookeeper/dist/index.js'));
const { silentLogger } = await import(join(root, 'packages/common/dist/index.js'));

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${err.slice(-400)}`))));
  });
}

function waitPort(port, ms = 30_000) {
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
const ensemble = await ZooKeeperEnsemble.onFreePorts({ dir: join(work, 'zk'), size: 3, tickTime: 500 });
await ensemble.start();
const ports = await freePorts(3);
const brokers = new Map();
function startBroker(id) {
  const dir = join(work, `broker-${id}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'server.properties'), [
    `broker.id=${id}`, `listeners=PLAINTEXT://127.0.0.1:${ports[id - 1]}`, `log.dirs=${dir}/data`,
    `zookeeper.connect=${ensemble.connectString}`, `zookeeper.session.timeout.ms=${SESSION_MS}`, 'http.port=-1',
    'replica.fetch.wait.max.ms=100', 'auto.leader.rebalance.enable=false', 'controlled.shutdown.retry.backoff.ms=200',
    ...(process.env.EXTRA_PROPS ?? '').split(',').filter(Boolean),
  ].join('\n'));
  const child = spawn(process.execPath, [join(root, 'packages/cli/dist/main.js'), 'broker', '--config', join(dir, 'server.properties')], {
    stdio: ['ignore', 'ignore', openSync(join(dir, 'broker.log'), 'a')],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  brokers.set(id, child);
  return waitPort(ports[id - 1]);
}
await Promise.all([1, 2, 3].map(startBroker));
const bootstrap = ports.map((p) => `127.0.0.1:${p}`).join(',');
const zkClient = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10_000, logger: silentLogger() });
const zk = new KafkaZkClient(zkClient);
const client = new KafkaClient({ brokers: bootstrap, metadataMaxAgeMs: 500 });
const admin = new Admin(client);
async function createTopic(name, partitions = PARTITIONS) {
  const [r] = await admin.createTopics([{ name, numPartitions: partitions, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }]);
  if (r.errorCode !== 0) throw new Error(`create ${name}: ${r.errorMessage}`);
  for (let i = 0; i < 100; i++) {
    const states = await Promise.all(Array.from({ length: partitions }, (_, p) => zk.getPartitionState(name, p)));
    if (states.every((s) => s && s.state.isr.length === 3)) return;
    await sleep(100);
  }
}

const out = {};
try {
  // --- 1. throughput -------------------------------------------------------------------------
  const input = join(work, 'lines.txt');
  if (PHASES.has('throughput')) {
    const ws = createWriteStream(input);
    const chunk = ('x'.repeat(100) + '\n').repeat(10_000);
    for (let i = 0; i < N / 10_000; i++) ws.write(chunk);
    await new Promise((r) => ws.end(r));
  }
  const rates = [];
  for (let round = 0; PHASES.has('throughput') && round < 2; round++) {
    await createTopic(`tput-${round}`);
    const t = now();
    await run('kcat', ['-P', '-b', bootstrap, '-t', `tput-${round}`, '-l', '-X', 'acks=all', '-X', 'linger.ms=5',
      '-X', 'batch.num.messages=10000', '-X', 'queue.buffering.max.messages=1000000', input]);
    rates.push(N / ((now() - t) / 1000));
  }
  out.throughput = rates;

  // --- 2. end-to-end latency ------------------------------------------------------------------
  if (PHASES.has('latency')) {
  // One partition, as Kafka's end-to-end latency tool: the consumer's long poll then waits on one leader only.
  await createTopic('latency', 1);
  const producer = new Producer(client, { acks: -1 });
  // Its own connections: a long-poll fetch must not sit in front of produce responses.
  const consumerClient = new KafkaClient({ brokers: bootstrap });
  const consumer = new Consumer(consumerClient, { maxWaitMs: 100, minBytes: 1 });
  const sentAt = new Map();
  const latencies = [];
  const abort = new AbortController();
  const reading = (async () => {
    for await (const r of consumer.consume({ topic: 'latency', from: 'latest', signal: abort.signal })) {
      const t = sentAt.get(r.value.toString());
      if (t !== undefined) latencies.push(now() - t);
      if (latencies.length >= RATE * SECONDS) break;
    }
  })().catch(() => {});
  await sleep(1000);
  const total = RATE * SECONDS;
  const started = now();
  const inflight = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - now();
    if (wait > 1) await sleep(wait);
    const v = `lat-${i}`;
    sentAt.set(v, now());
    inflight.push(producer.send({ topic: 'latency', messages: [{ key: v, value: v }] }));
    if (inflight.length > 200) await inflight.shift();
  }
  await Promise.all(inflight);
  for (let i = 0; i < 50 && latencies.length < total; i++) await sleep(100);
  abort.abort();
  await reading;
  await consumerClient.close();
  out.latency = { n: latencies.length, p50: pct(latencies, 50), p99: pct(latencies, 99), max: Math.max(...latencies) };
  }

  // --- 3. unavailability after faults ----------------------------------------------------------
  // Writes one record at a time to partition 0 with acks=all from the fault until the old leader has exited
  // (and 2 s more); the window is the longest time between two successful writes.
  async function unavailability(kind) {
    const topic = `fail-${kind}`;
    await createTopic(topic);
    const leader = (await zk.getPartitionState(topic, 0)).state.leader;
    const p = new Producer(new KafkaClient({ brokers: bootstrap, metadataMaxAgeMs: 200, requestTimeoutMs: 2000 }), {
      acks: -1, retryBackoffMs: 20, retryBackoffMaxMs: 50, deliveryTimeoutMs: 60_000, requestTimeoutMs: 2000,
    });
    await p.send({ topic, messages: [{ value: 'warm-up', partition: 0 }] });
    const child = brokers.get(leader);
    let exitedAt = null;
    child.once('exit', () => (exitedAt = now()));
    let last = now();
    let worst = 0;
    child.kill(kind === 'kill' ? 'SIGKILL' : 'SIGTERM');
    for (let i = 0; now() - last < 60_000 && (exitedAt === null || now() - exitedAt < 2000); i++) {
      try {
        await p.send({ topic, messages: [{ value: `after-${i}`, partition: 0 }] });
        const t = now();
        worst = Math.max(worst, t - last);
        last = t;
      } catch {
        await sleep(10);
      }
    }
    await startBroker(leader);
    return worst;
  }
  if (PHASES.has('failover')) {
    out.killWindowMs = await unavailability('kill');
    await sleep(2000);
    out.controlledWindowMs = await unavailability('term');
  }
} finally {
  await client.close().catch(() => {});
  await zkClient.close().catch(() => {});
  for (const child of brokers.values()) child.kill('SIGKILL');
  await ensemble.kill().catch(() => {});
}

const k = (x) => `${Math.round(x).toLocaleString('en-US')}`;
console.log(`gregor, 3 brokers, replication factor 3, min.insync.replicas=2, ${PARTITIONS} partitions (processes on one machine)`);
if (out.throughput.length) console.log(`  produce kcat acks=all  ${k(pct(out.throughput, 50))} rec/s [${out.throughput.map((x) => Math.round(x / 1000) + 'k').join(', ')}] (${N.toLocaleString('en-US')} x 100 B)`);
if (out.latency) console.log(`  end-to-end latency     p50 ${out.latency.p50.toFixed(1)} ms, p99 ${out.latency.p99.toFixed(1)} ms, max ${out.latency.max.toFixed(1)} ms (${out.latency.n} records at ${RATE}/s, acks=all)`);
if (out.killWindowMs !== undefined) console.log(`  kill -9 of a leader    longest gap between acks=all writes ${out.killWindowMs?.toFixed(0)} ms (zookeeper.session.timeout.ms=${SESSION_MS})`);
if (out.controlledWindowMs !== undefined) console.log(`  controlled shutdown    longest gap between acks=all writes ${out.controlledWindowMs?.toFixed(0)} ms`);
console.log(`  load average           ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
rmSync(work, { recursive: true, force: true });
process.exit(0);
