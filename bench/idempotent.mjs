#!/usr/bin/env node
// Idempotent vs plain produce on one gregor broker, in the same run: kcat (librdkafka 2.0.2) producing N records
// of 100 bytes with acks=all, rounds alternating `enable.idempotence=true` (producer id, sequence numbers, at most
// 5 requests in flight per partition; the broker checks and caches every batch's sequence range) and plain
// (librdkafka's default in-flight limit). Prints both medians and their ratio, the broker's peak RSS, and the
// number of producer-state snapshots the broker wrote. Then the broker's own share in isolation: leader appends of
// small batches (10 records) into a partition log, with and without a producer id, in this process.
//
//   npm run build && node bench/idempotent.mjs      env: N=1000000 ROUNDS=3 PARTITIONS=1 SEGMENT_BYTES=104857600
//   PLAIN_MAX_IN_FLIGHT=5 gives the plain runs idempotence's in-flight limit (a control: what the limit alone costs).
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.N ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PARTITIONS = Number(process.env.PARTITIONS ?? 1);
const SEGMENT_BYTES = Number(process.env.SEGMENT_BYTES ?? 100 * 1024 * 1024);
const PLAIN_MAX_IN_FLIGHT = process.env.PLAIN_MAX_IN_FLIGHT;
const work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), 'gregor-bench-idem-'));
const { ZooKeeperNode, freePort } = await import(join(root, 'packages/launcher/dist/index.js'));
const { Admin, KafkaClient } = await import(join(root, 'packages/client/dist/index.js'));
const { PartitionLog } = await import(join(root, 'packages/storage/dist/index.js'));
const { encodeRecordBatch } = await import(join(root, 'packages/protocol/dist/index.js'));
const { silentLogger } = await import(join(root, 'packages/common/dist/index.js'));

const now = () => Number(process.hrtime.bigint()) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-500)}`))));
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

const inputFile = join(work, `lines-${N}.txt`);
{
  const line = 'x'.repeat(100) + '\n';
  const ws = createWriteStream(inputFile);
  const chunk = line.repeat(10_000);
  for (let i = 0; i < N / 10_000; i++) ws.write(chunk);
  await new Promise((r) => ws.end(r));
}

const produceArgs = (brokers, topic, idempotent) => [
  '-P', '-b', brokers, '-t', topic, '-l',
  '-X', 'linger.ms=5', '-X', 'batch.num.messages=10000', '-X', 'queue.buffering.max.messages=1000000', '-X', 'acks=all',
  '-X', `enable.idempotence=${idempotent}`,
  ...(!idempotent && PLAIN_MAX_IN_FLIGHT ? ['-X', `max.in.flight=${PLAIN_MAX_IN_FLIGHT}`] : []),
  inputFile,
];

const zkDir = join(work, 'zk');
mkdirSync(zkDir);
const zk = new ZooKeeperNode({ id: 1, dir: zkDir, clientPort: await freePort(), tickTime: 500 });
await zk.start();
const port = await freePort();
const logDir = join(work, 'logs');
writeFileSync(
  join(work, 'server.properties'),
  [`broker.id=1`, `listeners=PLAINTEXT://127.0.0.1:${port}`, `log.dirs=${logDir}`, `zookeeper.connect=${zk.connectString}`,
    `num.partitions=${PARTITIONS}`, `http.port=-1`, `zookeeper.session.timeout.ms=6000`, `log.segment.bytes=${SEGMENT_BYTES}`].join('\n'),
);
const broker = spawn(process.execPath, [join(root, 'packages/cli/dist/main.js'), 'broker', '--config', join(work, 'server.properties')], {
  stdio: ['ignore', 'ignore', openSync(join(work, 'broker.log'), 'w')],
  env: { ...process.env, LOG_LEVEL: 'warn' },
});
await waitPort(port);
const bootstrap = `127.0.0.1:${port}`;

const results = { plain: [], idempotent: [] };
let snapshots = 0;
try {
  const client = new KafkaClient({ brokers: bootstrap });
  const admin = new Admin(client);
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 === 0 ? ['plain', 'idempotent'] : ['idempotent', 'plain']) {
      const topic = `bench-${mode}-${round}`;
      const [created] = await admin.createTopics([{ name: topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
      if (created.errorCode !== 0) throw new Error(`create ${topic}: ${created.errorMessage}`);
      const t = now();
      await run('kcat', produceArgs(bootstrap, topic, mode === 'idempotent'));
      results[mode].push(N / (now() - t));
    }
  }
  await client.close();
} finally {
  const status = readFileSync(`/proc/${broker.pid}/status`, 'utf8');
  results.brokerPeakRssMB = Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024);
  broker.kill('SIGTERM');
  await new Promise((r) => broker.on('exit', r));
  await zk.stop();
  for (const d of readdirSync(logDir, { withFileTypes: true })) {
    if (d.isDirectory() && d.name.startsWith('bench-idempotent')) snapshots += readdirSync(join(logDir, d.name)).filter((f) => f.endsWith('.snapshot')).length;
  }
}

/** Leader appends per second into one log: `batches` batches of 10 records of 100 bytes, pid -1 or one producer. */
function appendRate(idempotent, batches = 50_000) {
  const dir = join(work, `append-${idempotent}`);
  const log = new PartitionLog({
    dir, topic: 'a', partition: 0, logger: silentLogger(), hadCleanShutdown: true,
    config: { segmentBytes: SEGMENT_BYTES, indexIntervalBytes: 4096, retentionMs: -1, retentionBytes: -1, segmentMs: 604800000, maxMessageBytes: 1000012, fileDeleteDelayMs: 0 },
  });
  const records = Array.from({ length: 10 }, () => ({ key: null, value: Buffer.alloc(100, 0x78), headers: [], timestamp: Date.now() }));
  // Encoded first: only the append (validation, producer-state check, write) is timed.
  const encoded = Array.from({ length: batches }, (_, i) =>
    encodeRecordBatch({ baseOffset: 0, compression: 0, firstTimestamp: records[0].timestamp, records, ...(idempotent ? { producerId: 1000, producerEpoch: 0, baseSequence: i * 10 } : {}) }),
  );
  const t = now();
  for (const batch of encoded) log.appendAsLeader(batch, 0, { inPlace: true });
  const rate = batches / (now() - t);
  log.close();
  rmSync(dir, { recursive: true, force: true });
  return rate;
}
const appends = { plain: [], idempotent: [] };
for (let round = 0; round < ROUNDS; round++) for (const mode of ['plain', 'idempotent']) appends[mode].push(appendRate(mode === 'idempotent'));

const fmt = (xs) => `${Math.round(median(xs)).toLocaleString('en-US')} rec/s [${xs.map((x) => Math.round(x / 1000) + 'k').join(', ')}]`;
console.log(`gregor single broker, ${N.toLocaleString('en-US')} records of 100 bytes, ${PARTITIONS} partition(s), acks=all, ${ROUNDS} rounds each, alternating`);
console.log(`  produce  kcat -> gregor, plain${PLAIN_MAX_IN_FLIGHT ? ` (max.in.flight=${PLAIN_MAX_IN_FLIGHT})` : ''}               ${fmt(results.plain)}`);
console.log(`  produce  kcat -> gregor, enable.idempotence  ${fmt(results.idempotent)}`);
console.log(`  ratio    idempotent / plain                  ${(median(results.idempotent) / median(results.plain)).toFixed(2)} of the medians; ${median(results.plain.map((p, i) => results.idempotent[i] / p)).toFixed(2)} median of the per-round ratios (the two runs of a round are back to back, so machine load affects them alike)`);
console.log(`  broker peak RSS                              ${results.brokerPeakRssMB} MB`);
const fmtB = (xs) => `${Math.round(median(xs)).toLocaleString('en-US')} batches/s [${xs.map((x) => Math.round(x / 1000) + 'k').join(', ')}]`;
console.log(`  log append (10-record batches), plain       ${fmtB(appends.plain)}`);
console.log(`  log append (10-record batches), idempotent  ${fmtB(appends.idempotent)}`);
console.log(`  ratio    idempotent / plain (broker only)   ${(median(appends.idempotent) / median(appends.plain)).toFixed(2)}`);
console.log(`  producer-state snapshots (idempotent topics) ${snapshots} (segment.bytes ${SEGMENT_BYTES})`);
console.log(`  load average                                 ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
rmSync(work, { recursive: true, force: true });
