#!/usr/bin/env node
// gregor's Consumer (or Reader) of two built checkouts, alternately, against the same broker and the same 1M
// records, each run in its own fresh process: a before/after comparison of the consuming client's CPU per record
// in one sitting (the figures of a single run on this shared 2-core machine vary up to 2x).
//
//   npm run build && node bench/consume-ab.mjs <checkoutA> <checkoutB> [consumer|reader|connector1|connector4] [rounds] [--json <file>]
//   (the connector kinds read a 12-partition topic with 1 or 4 streams; the others a 1-partition topic)
//   (PROF=1 also writes each run's CPU profile under <scratch>/prof/<A|B><round>)
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin, KafkaClient } from '@gregor/client';
import { createTopicRetrying, kcatProduceArgs, linesFile, median, run, startBench } from './lib/bench.mjs';

const args = process.argv.slice(2).filter((a, i, all) => a !== '--json' && all[i - 1] !== '--json');
const [A, B, kind = 'consumer', rounds = '4'] = args;
if (!A || !B) throw new Error('usage: node bench/consume-ab.mjs <checkoutA> <checkoutB> [consumer|reader|connector1|connector4] [rounds]');
const N = 1_000_000;
const b = await startBench('consume-ab', { params: { a: resolve(A), b: resolve(B), kind, rounds: Number(rounds), N, recordBytes: 100 } });
const { bootstrap, zk } = await b.singleBroker({ 'offsets.topic.replication.factor': '1' }); // the Reader's group needs a coordinator
const client = new KafkaClient({ brokers: bootstrap });
await createTopicRetrying(new Admin(client), 'ab', kind.startsWith('connector') ? 12 : 1);
await client.close();
await run('kcat', kcatProduceArgs(bootstrap, 'ab', await linesFile(join(b.work, 'lines.txt'), N), 'acks=1'));

const one = fileURLToPath(new URL('./lib/consume-one.mjs', import.meta.url));
const runs = { A: [], B: [] };
for (let i = 0; i < Number(rounds); i++) {
  for (const [k, root] of [['A', A], ['B', B]]) {
    const prof = process.env.PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(b.work, 'prof', `${k}${i}`)}`] : [];
    const out = JSON.parse(execFileSync('node', [...prof, one, resolve(root), bootstrap, 'ab', kind, String(N), zk.connectString], { encoding: 'utf8' }).trim().split('\n').pop());
    runs[k].push(out);
    console.log(`${k} round ${i + 1}: ${out.rate.toLocaleString('en-US')} records/s, ${out.cpuPerM.toFixed(2)} client CPU-s per 1M`);
  }
}
const results = {};
for (const k of ['A', 'B']) {
  results[k] = { recordsPerSec: median(runs[k].map((x) => x.rate)), cpuSecondsPerMillion: median(runs[k].map((x) => x.cpuPerM)), runs: runs[k] };
  console.log(`${k} (${k === 'A' ? A : B}): median ${results[k].recordsPerSec.toLocaleString('en-US')} records/s, ${results[k].cpuSecondsPerMillion.toFixed(2)} CPU-s per 1M`);
}
await b.finish(results);
