#!/usr/bin/env node
// gregor's own clients against one broker, in the same run as kcat (issue 14's targets): per round,
// kcat produces N records of 100 bytes (acks=1, 1 partition), then gregor's Producer produces the same
// into its own topic; then gregor's Consumer (group-less, untilEnd) and Reader (a group) read them back.
// Prints figures, ratios, CPU per 1M records and the load average (bench/lib: `JSON: {...}` as the last line,
// --json <file>). GREGOR_ROOT runs the broker and the clients of another built checkout (before/after in one sitting).
//
//   npm run build && node bench/own-clients.mjs [--json <file>]
//   env: N=1000000 ROUNDS=3 PHASES=kcat,producer,consumer,reader SEND=1000 IN_FLIGHT=8 BATCH_SIZE=1048576 LINGER_MS=0
//   (each client at its own default linger: the Producer's 0, Kafka 2.4's Java producer's too; kcat keeps librdkafka's 5 ms.
//   With 8 sends in flight an application waits for its acks, so a linger only delays each batch: docs/benchmarks.md)
//   PROFILE=1 writes a CPU profile of the broker to PROFILE_DIR (default ./profiles); run this script with --cpu-prof for the clients.
import { join, resolve } from 'node:path';
import { cpuProfileArgs, fmtRuns, kcatProduceArgs, linesFile, loadAvg, median, nowS as now, PROFILE_DIR, root as repoRoot, run, startBench } from './lib/bench.mjs';

// GREGOR_ROOT: another built checkout (e.g. main) to measure before/after in the same run.
const root = process.env.GREGOR_ROOT ? resolve(process.env.GREGOR_ROOT) : repoRoot;
const PHASES = new Set((process.env.PHASES ?? 'kcat,producer,consumer,reader').split(','));
const { Admin, KafkaClient, Producer, Consumer, Reader } = await import(join(root, 'packages/client/dist/index.js'));

// The figures in docs/benchmarks.md are at these defaults (no smaller default: N and ROUNDS from the environment).
const b = await startBench('own-clients', {
  env: { N: 1_000_000, ROUNDS: 3, SEND: 1000, IN_FLIGHT: 8, BATCH_SIZE: 1_048_576, LINGER_MS: 0 },
  params: { phases: [...PHASES], recordBytes: 100, partitions: 1, acks: 1, gregorRoot: process.env.GREGOR_ROOT ?? null },
});
const { N, ROUNDS, SEND, IN_FLIGHT, BATCH_SIZE, LINGER_MS } = b.params;
const inputFile = await linesFile(join(b.work, 'lines.txt'), N);

process.env.LOG_LEVEL ??= 'warn'; // the broker's log level, as before the port to bench/lib
const { bootstrap } = await b.singleBroker(
  { 'offsets.topic.replication.factor': '1' },
  { gregorRoot: root, nodeArgs: cpuProfileArgs('broker') },
);
const results = { kcat: [], producer: [], consumer: [], reader: [], load: [] };
// CPU-seconds per 1,000,000 records of this process (the clients) and of the broker, per phase: steadier than
// wall-clock rates on a loaded machine.
const cpu = { producer: [], consumer: [], reader: [] };
const brokerCpu = { kcat: [], producer: [], consumer: [], reader: [] };
const brokerCpuSecs = () => b.brokerCpuSeconds();
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
b.onCleanup(() => client.close());
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

for (let round = 0; round < ROUNDS; round++) {
  const kcatTopic = `kcat-${round}`;
  const ownTopic = `own-${round}`;
  if (PHASES.has('kcat')) {
    await createTopic(kcatTopic);
    const t = now();
    await measured('kcat', () => run('kcat', kcatProduceArgs(bootstrap, kcatTopic, inputFile, 'acks=1')));
    results.kcat.push(N / (now() - t));
  }
  await createTopic(ownTopic);
  if (PHASES.has('producer')) results.producer.push(await measured('producer', () => produceOwn(ownTopic)));
  else await produceOwn(ownTopic);
  if (PHASES.has('consumer')) results.consumer.push(await measured('consumer', () => consumeOwn(ownTopic)));
  if (PHASES.has('reader')) results.reader.push(await measured('reader', () => readOwn(ownTopic, round)));
  results.load.push(loadAvg().map((l) => l.toFixed(1)).join(' '));
}

const fmtRates = (xs) => (xs.length ? fmtRuns(xs) : '-');
console.log(`gregor's own clients, 1 broker, 1 partition, ${N.toLocaleString('en-US')} records of 100 bytes, acks=1, ${ROUNDS} rounds`);
console.log(`  produce  kcat -> gregor        ${fmtRates(results.kcat)}`);
console.log(`  produce  Producer -> gregor    ${fmtRates(results.producer)}   (${SEND}-record sends, ${IN_FLIGHT} in flight, batch.size ${BATCH_SIZE}, linger.ms ${LINGER_MS})`);
if (results.kcat.length && results.producer.length) console.log(`  ratio    Producer / kcat       ${(median(results.producer) / median(results.kcat)).toFixed(2)}`);
console.log(`  consume  Consumer              ${fmtRates(results.consumer)}`);
console.log(`  consume  Reader                ${fmtRates(results.reader)}`);
const secs = (xs) => (xs.length ? `${median(xs).toFixed(2)} s [${xs.map((x) => x.toFixed(2)).join(', ')}]` : '-');
for (const k of ['kcat', 'producer', 'consumer', 'reader']) {
  if (brokerCpu[k].length) console.log(`  CPU per 1M records, ${k.padEnd(8)}  client ${cpu[k] ? secs(cpu[k]) : '(kcat)'}, broker ${secs(brokerCpu[k])}`);
}
console.log(`  load average after each round  ${results.load.join(' | ')}`);
if (PROFILE_DIR) console.log(`profiles in ${PROFILE_DIR} (broker.cpuprofile, written when the broker stops; run this script with --cpu-prof for the clients)`);
const phases = ['kcat', 'producer', 'consumer', 'reader'];
const medianOrNull = (xs) => (xs.length ? median(xs) : null);
await b.finish(
  {
    ...Object.fromEntries(phases.map((k) => [k, results[k].length ? Math.round(median(results[k])) : null])),
    runs: Object.fromEntries(phases.map((k) => [k, results[k].map(Math.round)])),
    clientCpuPerM: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, medianOrNull(v)])),
    brokerCpuPerM: Object.fromEntries(Object.entries(brokerCpu).map(([k, v]) => [k, medianOrNull(v)])),
    load: results.load,
  },
  {
    charts: [
      {
        id: 'own-clients',
        title: `gregor's own clients, 1 broker, 1 partition, ${N.toLocaleString('en-US')} × 100 B, acks=1`,
        unit: 'records/s',
        bars: phases.filter((k) => results[k].length).map((k) => ({ label: k === 'kcat' ? 'kcat produce' : k, value: median(results[k]), runs: results[k] })),
      },
    ],
  },
);
process.exit(0);
