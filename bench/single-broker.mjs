#!/usr/bin/env node
// Single-broker throughput on this machine: kcat (librdkafka 2.0.2) producing N records of 100 bytes
// with acks=1 into one gregor broker, then consuming them, alternating with kcat against librdkafka's
// own mock broker (the client's ceiling) so the ratio is measured in the same run. Also: raw disk
// sequential write speed, the broker's peak RSS, and optionally a CPU profile of the broker (PROFILE=1).
//
//   npm run build && node bench/single-broker.mjs      env: N=1000000 ROUNDS=3 PARTITIONS=1 PROFILE=0
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, openSync, writeSync, fsyncSync, closeSync, unlinkSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.N ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PARTITIONS = Number(process.env.PARTITIONS ?? 1);
const PROFILE = process.env.PROFILE === '1';
const work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), 'gregor-bench-'));
const { ZooKeeperNode, freePort } = await import(join(root, 'packages/launcher/dist/index.js'));
const { Admin, KafkaClient } = await import(join(root, 'packages/client/dist/index.js'));

const now = () => Number(process.hrtime.bigint()) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(cmd, args, { input, stdout = 'ignore' } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: [input ? 'pipe' : 'ignore', stdout, 'pipe'] });
    let err = '';
    let out = '';
    child.stderr.on('data', (d) => (err += d));
    if (stdout === 'pipe') child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-500)}`))));
  });
}

function waitPort(port, ms = 30_000) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve();
      });
      s.on('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`port ${port} not open`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

function diskWriteMBps(dir) {
  const MiB = 1 << 20;
  const total = 1024 * MiB;
  const f = join(dir, 'disk.bin');
  const buf = Buffer.alloc(MiB, 0x61);
  const fd = openSync(f, 'w');
  const t0 = now();
  for (let i = 0; i < total / MiB; i++) writeSync(fd, buf);
  fsyncSync(fd);
  const secs = now() - t0;
  closeSync(fd);
  unlinkSync(f);
  return Math.round(total / 1e6 / secs);
}

const inputFile = join(work, `lines-${N}.txt`);
{
  const line = 'x'.repeat(100) + '\n'; // 100-byte values, no key (as the peer benchmarks)
  const ws = createWriteStream(inputFile);
  const chunk = line.repeat(10_000);
  for (let i = 0; i < N / 10_000; i++) ws.write(chunk);
  await new Promise((r) => ws.end(r));
}

const produceArgs = (brokers, topic) => [
  '-P', '-b', brokers, '-t', topic, '-l',
  '-X', 'linger.ms=5', '-X', 'batch.num.messages=10000', '-X', 'queue.buffering.max.messages=1000000', '-X', 'acks=1',
  inputFile,
];
const consumeArgs = (brokers, topic) => [
  '-C', '-b', brokers, '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%o\n',
  '-X', 'fetch.message.max.bytes=8388608', '-X', 'fetch.wait.max.ms=10',
];

// Broker
const zkDir = join(work, 'zk');
mkdirSync(zkDir);
const zk = new ZooKeeperNode({ id: 1, dir: zkDir, clientPort: await freePort(), tickTime: 500 });
await zk.start();
const port = await freePort();
const logDir = join(work, 'logs');
writeFileSync(
  join(work, 'server.properties'),
  [`broker.id=1`, `listeners=PLAINTEXT://127.0.0.1:${port}`, `log.dirs=${logDir}`, `zookeeper.connect=${zk.connectString}`,
    `num.partitions=${PARTITIONS}`, `http.port=-1`, `zookeeper.session.timeout.ms=6000`].join('\n'),
);
const nodeArgs = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(work, 'prof')}`] : [];
const broker = spawn(process.execPath, [...nodeArgs, join(root, 'packages/cli/dist/main.js'), 'broker', '--config', join(work, 'server.properties')], {
  stdio: ['ignore', 'ignore', openSync(join(work, 'broker.log'), 'w')],
  env: { ...process.env, LOG_LEVEL: 'warn' },
});
await waitPort(port);
const bootstrap = `127.0.0.1:${port}`;

const results = { gregorProduce: [], mockProduce: [], gregorConsume: [] };
try {
  const client = new KafkaClient({ brokers: bootstrap });
  const admin = new Admin(client);
  for (let round = 0; round < ROUNDS; round++) {
    const topic = `bench-${round}`;
    // Created before the clock starts: auto-creation on first use would be timed otherwise.
    const [created] = await admin.createTopics([{ name: topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    if (created.errorCode !== 0) throw new Error(`create ${topic}: ${created.errorMessage}`);
    // kcat -> librdkafka mock broker (ceiling)
    let t = now();
    await run('kcat', [...produceArgs('dummy:9092', topic), '-X', 'test.mock.num.brokers=1']);
    results.mockProduce.push(N / (now() - t));
    // kcat -> gregor
    t = now();
    await run('kcat', produceArgs(bootstrap, topic));
    results.gregorProduce.push(N / (now() - t));
    t = now();
    const out = await run('kcat', consumeArgs(bootstrap, topic), { stdout: 'pipe' });
    const secs = now() - t;
    const count = out.length === 0 ? 0 : out.trimEnd().split('\n').length;
    if (count !== N) throw new Error(`consumed ${count} records, expected ${N}`);
    results.gregorConsume.push(N / secs);
  }
  await client.close();
} finally {
  const status = readFileSync(`/proc/${broker.pid}/status`, 'utf8');
  results.brokerPeakRssMB = Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024);
  broker.kill('SIGTERM');
  await new Promise((r) => broker.on('exit', r));
  await zk.stop();
}
results.diskWriteMBps = diskWriteMBps(work);

const fmt = (xs) => `${Math.round(median(xs)).toLocaleString('en-US')} rec/s [${xs.map((x) => Math.round(x / 1000) + 'k').join(', ')}]`;
console.log(`gregor single broker, ${N.toLocaleString('en-US')} records of 100 bytes, ${PARTITIONS} partition(s), acks=1, ${ROUNDS} rounds`);
console.log(`  produce  kcat -> gregor       ${fmt(results.gregorProduce)}`);
console.log(`  produce  kcat -> mock broker  ${fmt(results.mockProduce)}   (librdkafka's own ceiling)`);
console.log(`  ratio    gregor / mock        ${(median(results.gregorProduce) / median(results.mockProduce)).toFixed(2)}`);
console.log(`  consume  gregor -> kcat       ${fmt(results.gregorConsume)}`);
console.log(`  broker peak RSS               ${results.brokerPeakRssMB} MB`);
console.log(`  disk sequential write         ${results.diskWriteMBps} MB/s (1 GiB, 1 MiB writes + fsync); gregor produce = ${((median(results.gregorProduce) * 100) / 1e6).toFixed(0)} MB/s of payload`);
console.log(`  load average                  ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

if (PROFILE) {
  const dir = join(work, 'prof');
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const self = new Map();
  const dt = prof.timeDeltas;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    const name = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/packages\//, '').replace(/^node:/, 'node:')}:${n.callFrame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log('  broker CPU profile (self time, top 15):');
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`    ${((us / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
}
rmSync(work, { recursive: true, force: true });
