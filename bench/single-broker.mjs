#!/usr/bin/env node
// Single-broker throughput on this machine: kcat (librdkafka 2.0.2) producing N records of 100 bytes
// with acks=1 into one gregor broker, then consuming them, alternating with kcat against librdkafka's
// own mock broker (the client's ceiling) so the ratio is measured in the same run. Also: raw disk
// sequential write speed, the broker's peak RSS and CPU-seconds per million records, and optionally a CPU
// profile of the broker (PROFILE=1).
//
//   npm run build && node bench/single-broker.mjs [--json <file>] [--full]
//   env: N=200000 (--full: 1000000) ROUNDS=3 PARTITIONS=1 PROFILE=0 DISK_MB=256 (--full: 1024)
//        TOPIC_COMPRESSION=producer (the topics' compression.type; kcat sends uncompressed, so e.g. zstd makes the
//        leader recompress every batch)
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, KafkaClient } from '@gregor/client';
import { fmt, fmtRuns, kcatProduceArgs, linesFile, median, nowS, run, startBench } from './lib/bench.mjs';

const PROFILE = process.env.PROFILE === '1';
const TOPIC_COMPRESSION = process.env.TOPIC_COMPRESSION ?? 'producer';
const b = await startBench('single-broker', { env: { N: [200_000, 1_000_000], ROUNDS: 3, PARTITIONS: 1, DISK_MB: [256, 1024] }, params: { recordBytes: 100, acks: 1, topicCompression: TOPIC_COMPRESSION } });
const { N, ROUNDS, PARTITIONS, DISK_MB } = b.params;
process.env.LOG_LEVEL ??= 'warn';

function diskWriteMBps(dir) {
  const MiB = 1 << 20;
  const f = join(dir, 'disk.bin');
  const buf = Buffer.alloc(MiB, 0x61);
  const fd = openSync(f, 'w');
  const t0 = nowS();
  for (let i = 0; i < DISK_MB; i++) writeSync(fd, buf);
  fsyncSync(fd);
  const secs = nowS() - t0;
  closeSync(fd);
  unlinkSync(f);
  return Math.round((DISK_MB * MiB) / 1e6 / secs);
}

const input = await linesFile(join(b.work, `lines-${N}.txt`), N); // 100-byte values, no key (as the peer benchmarks)
const produceArgs = (brokers, topic, ...extra) => kcatProduceArgs(brokers, topic, input, 'acks=1', ...extra);
const consumeArgs = (brokers, topic) => [
  '-C', '-b', brokers, '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%o\n',
  '-X', 'fetch.message.max.bytes=8388608', '-X', 'fetch.wait.max.ms=10',
];

const profDir = join(b.work, 'prof');
const { bootstrap } = await b.singleBroker({ 'num.partitions': String(PARTITIONS) }, { nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [] });
const r = { gregorProduce: [], mockProduce: [], gregorConsume: [], brokerCpuSecondsPerMillion: [] };
const client = new KafkaClient({ brokers: bootstrap });
b.onCleanup(() => client.close());
const admin = new Admin(client);
for (let round = 0; round < ROUNDS; round++) {
  const topic = `bench-${round}`;
  // Created before the clock starts: auto-creation on first use would be timed otherwise.
  const [created] = await admin.createTopics([{ name: topic, numPartitions: PARTITIONS, replicationFactor: 1, configs: { 'compression.type': TOPIC_COMPRESSION } }]);
  if (created.errorCode !== 0) throw new Error(`create ${topic}: ${created.errorMessage}`);
  // kcat -> librdkafka mock broker (ceiling)
  let t = nowS();
  await run('kcat', produceArgs('dummy:9092', topic, 'test.mock.num.brokers=1'));
  r.mockProduce.push(N / (nowS() - t));
  // kcat -> gregor, then back out: the broker's CPU over both, per million records produced and consumed
  const cpu0 = b.brokerCpuSeconds();
  t = nowS();
  await run('kcat', produceArgs(bootstrap, topic));
  r.gregorProduce.push(N / (nowS() - t));
  t = nowS();
  const out = await run('kcat', consumeArgs(bootstrap, topic), { stdout: 'pipe' });
  const secs = nowS() - t;
  const count = out.length === 0 ? 0 : out.toString().trimEnd().split('\n').length;
  if (count !== N) throw new Error(`consumed ${count} records, expected ${N}`);
  r.gregorConsume.push(N / secs);
  b.sample();
  r.brokerCpuSecondsPerMillion.push(((b.brokerCpuSeconds() - cpu0) * 1e6) / N);
}
await b.close();
const results = {
  produceGregor: median(r.gregorProduce),
  produceMock: median(r.mockProduce),
  ratio: median(r.gregorProduce) / median(r.mockProduce),
  consumeGregor: median(r.gregorConsume),
  brokerCpuSecondsPerMillion: median(r.brokerCpuSecondsPerMillion),
  runs: r,
  diskWriteMBps: diskWriteMBps(b.work),
};

console.log(`gregor single broker, ${fmt(N)} records of 100 bytes, ${PARTITIONS} partition(s), acks=1, ${ROUNDS} rounds`);
console.log(`  produce  kcat -> gregor       ${fmtRuns(r.gregorProduce)}`);
console.log(`  produce  kcat -> mock broker  ${fmtRuns(r.mockProduce)}   (librdkafka's own ceiling)`);
console.log(`  ratio    gregor / mock        ${results.ratio.toFixed(2)}`);
console.log(`  consume  gregor -> kcat       ${fmtRuns(r.gregorConsume)}`);
console.log(`  broker CPU per 1M records produced and consumed  ${results.brokerCpuSecondsPerMillion.toFixed(2)} s [${r.brokerCpuSecondsPerMillion.map((x) => x.toFixed(2)).join(', ')}]`);
console.log(`  disk sequential write         ${results.diskWriteMBps} MB/s (${DISK_MB} MiB, 1 MiB writes + fsync); gregor produce = ${((results.produceGregor * 100) / 1e6).toFixed(0)} MB/s of payload`);

if (PROFILE) {
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
  const self = new Map();
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    const name = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/packages\//, '')}:${n.callFrame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, c) => a + c, 0);
  results.profile = [...self].sort((x, y) => y[1] - x[1]).slice(0, 15).map(([name, us]) => ({ name, share: us / total }));
  console.log('  broker CPU profile (self time, top 15):');
  for (const { name, share } of results.profile) console.log(`    ${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
}
await b.finish(results, {
  charts: [
    { id: 'single-broker-produce', title: `Produce, 1 broker, acks=1, ${fmt(N)} × 100 B (kcat)`, unit: 'records/s', bars: [
      { label: 'kcat → gregor', value: results.produceGregor, runs: r.gregorProduce },
      { label: 'kcat → mock broker', value: results.produceMock, runs: r.mockProduce },
    ] },
    { id: 'single-broker-consume', title: `Consume, 1 broker, ${fmt(N)} × 100 B (kcat)`, unit: 'records/s', bars: [
      { label: 'gregor → kcat', value: results.consumeGregor, runs: r.gregorConsume },
    ] },
  ],
});
