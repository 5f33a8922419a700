#!/usr/bin/env node
// gregor's own clients against one broker, in the same run as kcat (issue 14's targets): per round,
// kcat produces N records of 100 bytes (acks=1, 1 partition), then gregor's Producer produces the same
// into its own topic; then gregor's Consumer (group-less, untilEnd) and Reader (a group) read them back.
// Prints figures, ratios, CPU per 1M records and the load average, then one `JSON: {...}` line. Not on bench/lib yet:
// GREGOR_ROOT runs the broker and the clients of another built checkout (before/after in one sitting).
//
//   npm run build && node bench/own-clients.mjs
//   env: N=1000000 ROUNDS=3 PHASES=kcat,producer,consumer,reader SEND=1000 IN_FLIGHT=8 BATCH_SIZE=1048576 LINGER_MS=5
//   PROFILE=1 writes a CPU profile of this process (the clients) and of the broker to PROFILE_DIR (default ./profiles).
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// GREGOR_ROOT: another built checkout (e.g. main) to measure before/after in the same run.
const root = process.env.GREGOR_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.N ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PHASES = new Set((process.env.PHASES ?? 'kcat,producer,consumer,reader').split(','));
const SEND = Number(process.env.SEND ?? 1000);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 8);
const BATCH_SIZE = Number(process.env.BATCH_SIZE ?? 1_048_576);
const LINGER_MS = Number(process.env.LINGER_MS ?? 5);
const PROFILE_DIR = process.env.PROFILE === '1' ? resolve(process.env.PROFILE_DIR ?? 'profiles') : null;
const work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), 'gregor-bench-own-'));
const { ZooKeeperNode, freePort, portOpen } = await import(join(root, 'packages/launcher/dist/index.js'));
const { Admin, KafkaClient, Producer, Consumer, Reader } = await import(join(root, 'packages/client/dist/index.js'));
const { sleep } = await import(join(root, 'packages/common/dist/index.js'));

const now = () => Number(process.hrtime.bigint()) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

function run(cmd, args) {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? res() : rej(new Error(`${cmd} exited ${code}: ${err.slice(-500)}`))));
  });
}

const inputFile = join(work, 'lines.txt');
{
  const ws = createWriteStream(inputFile);
  const chunk = ('x'.repeat(100) + '\n').repeat(10_000);
  for (let i = 0; i < N / 10_000; i++) ws.write(chunk);
  await new Promise((r) => ws.end(r));
}

const zk = new ZooKeeperNode({ id: 1, dir: join(work, 'zk'), clientPort: await freePort(), tickTime: 500 });
await zk.start();
const port = await freePort();
writeFileSync(
  join(work, 'server.properties'),
  [`broker.id=1`, `listeners=PLAINTEXT://127.0.0.1:${port}`, `log.dirs=${join(work, 'logs')}`, `zookeeper.connect=${zk.connectString}`, `http.port=-1`, `offsets.topic.replication.factor=1`].join('\n'),
);
if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
const broker = spawn(
  process.execPath,
  [...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, '--cpu-prof-name=broker.cpuprofile'] : []), join(root, 'packages/cli/dist/main.js'), 'broker', '--config', join(work, 'server.properties')],
  { stdio: ['ignore', 'ignore', openSync(join(work, 'broker.log'), 'w')], env: { ...process.env, LOG_LEVEL: 'warn' } },
);
for (let i = 0; !(await portOpen('127.0.0.1', port)); i++) {
  if (i > 300) throw new Error('broker did not open its port');
  await sleep(100);
}
const bootstrap = `127.0.0.1:${port}`;
const results = { kcat: [], producer: [], consumer: [], reader: [], load: [] };
// CPU-seconds per 1,000,000 records of this process (the clients) and of the broker, per phase: steadier than
// wall-clock rates on a loaded machine.
const cpu = { producer: [], consumer: [], reader: [] };
const brokerCpu = { kcat: [], producer: [], consumer: [], reader: [] };
const brokerCpuSecs = () => {
  const f = readFileSync(`/proc/${broker.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 10 ms
};
async function measured(name, fn) {
  const c0 = process.cpuUsage();
  const b0 = brokerCpuSecs();
  const rate = await fn();
  const c = process.cpuUsage(c0);
  if (cpu[name]) cpu[name].push(((c.user + c.system) / 1e6) * (1e6 / N));
  brokerCpu[name].push((brokerCpuSecs() - b0) * (1e6 / N));
  return rate;
}
const client = new KafkaClient({ brokers: bootstrap });
const admin = new Admin(client);
const value = Buffer.alloc(100, 'x');
const messages = Array.from({ length: SEND }, () => ({ value }));

async function createTopic(name) {
  const [created] = await admin.createTopics([{ name, numPartitions: 1, replicationFactor: 1 }]);
  if (created.errorCode !== 0) throw new Error(`create ${name}: ${created.errorMessage}`);
  await client.ensureTopics([name]);
}

async function produceOwn(topic) {
  const producer = new Producer(client, { acks: 1, batchSize: BATCH_SIZE, lingerMs: LINGER_MS });
  await producer.send({ topic, messages: messages.slice(0, 1) }); // connections, metadata
  let left = N - 1;
  const t = now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left > 0) {
        const n = Math.min(SEND, left);
        left -= n;
        await producer.send({ topic, messages: n === SEND ? messages : messages.slice(0, n) });
      }
    }),
  );
  const rate = (N - 1) / (now() - t);
  await producer.close();
  return rate;
}

async function consumeOwn(topic) {
  const consumer = new Consumer(client);
  let count = 0;
  const t = now();
  for await (const _r of consumer.consume({ topic, untilEnd: true })) count++;
  const secs = now() - t;
  if (count !== N) throw new Error(`Consumer read ${count} records, expected ${N}`);
  return N / secs;
}

async function readOwn(topic, round) {
  const reader = new Reader({ brokers: bootstrap, groupId: `bench-reader-${round}`, topic, sessionTimeoutMs: 10_000 });
  let t = 0;
  try {
    for (let i = 0; i < N; i++) {
      await reader.fetchMessage();
      if (i === 0) t = now(); // from the first record: joining the group is not timed
    }
    return (N - 1) / (now() - t);
  } finally {
    await reader.close();
  }
}

try {
  for (let round = 0; round < ROUNDS; round++) {
    const kcatTopic = `kcat-${round}`;
    const ownTopic = `own-${round}`;
    if (PHASES.has('kcat')) {
      await createTopic(kcatTopic);
      const t = now();
      await measured('kcat', () => run('kcat', ['-P', '-b', bootstrap, '-t', kcatTopic, '-l', '-X', 'linger.ms=5', '-X', 'batch.num.messages=10000', '-X', 'queue.buffering.max.messages=1000000', '-X', 'acks=1', inputFile]));
      results.kcat.push(N / (now() - t));
    }
    await createTopic(ownTopic);
    if (PHASES.has('producer')) results.producer.push(await measured('producer', () => produceOwn(ownTopic)));
    else await produceOwn(ownTopic);
    if (PHASES.has('consumer')) results.consumer.push(await measured('consumer', () => consumeOwn(ownTopic)));
    if (PHASES.has('reader')) results.reader.push(await measured('reader', () => readOwn(ownTopic, round)));
    results.load.push(load());
  }
} finally {
  await client.close();
  broker.kill('SIGTERM');
  await new Promise((r) => broker.on('exit', r));
  await zk.stop();
  rmSync(work, { recursive: true, force: true });
}

const fmt = (xs) => (xs.length ? `${Math.round(median(xs)).toLocaleString('en-US')} rec/s [${xs.map((x) => Math.round(x / 1000) + 'k').join(', ')}]` : '-');
console.log(`gregor's own clients, 1 broker, 1 partition, ${N.toLocaleString('en-US')} records of 100 bytes, acks=1, ${ROUNDS} rounds`);
console.log(`  produce  kcat -> gregor        ${fmt(results.kcat)}`);
console.log(`  produce  Producer -> gregor    ${fmt(results.producer)}   (${SEND}-record sends, ${IN_FLIGHT} in flight, batch.size ${BATCH_SIZE}, linger.ms ${LINGER_MS})`);
if (results.kcat.length && results.producer.length) console.log(`  ratio    Producer / kcat       ${(median(results.producer) / median(results.kcat)).toFixed(2)}`);
console.log(`  consume  Consumer              ${fmt(results.consumer)}`);
console.log(`  consume  Reader                ${fmt(results.reader)}`);
const secs = (xs) => (xs.length ? `${median(xs).toFixed(2)} s [${xs.map((x) => x.toFixed(2)).join(', ')}]` : '-');
for (const k of ['kcat', 'producer', 'consumer', 'reader']) {
  if (brokerCpu[k].length) console.log(`  CPU per 1M records, ${k.padEnd(8)}  client ${cpu[k] ? secs(cpu[k]) : '(kcat)'}, broker ${secs(brokerCpu[k])}`);
}
console.log(`  load average after each round  ${results.load.join(' | ')}`);
console.log('JSON: ' + JSON.stringify({ bench: 'own-clients', ...Object.fromEntries(['kcat', 'producer', 'consumer', 'reader'].map((k) => [k, results[k].length ? Math.round(median(results[k])) : null])), clientCpuPerM: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v.length ? median(v) : null])), brokerCpuPerM: Object.fromEntries(Object.entries(brokerCpu).map(([k, v]) => [k, v.length ? median(v) : null])), load: results.load }));
if (PROFILE_DIR) console.log(`profiles in ${PROFILE_DIR} (broker.cpuprofile; run this script with --cpu-prof for the clients)`);
process.exit(0);
