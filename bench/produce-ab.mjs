#!/usr/bin/env node
// The broker of two built checkouts side by side, each alone with its own ZooKeeper, taking the same N records from
// kcat (acks=1, 1 partition) in alternating turns (A B, B A, ...): a before/after comparison of the broker's CPU
// (user and system apart) and page faults per 1M records produced, in one sitting (figures of single runs on this
// shared 2-core machine vary up to 2x).
//
//   npm run build && node bench/produce-ab.mjs <checkoutA> <checkoutB> [rounds] [--json <file>]   env: N=2000000
import { join, resolve } from 'node:path';
import { Admin, KafkaClient } from '@gregor/client';
import { createTopicRetrying, kcatProduceArgs, linesFile, median, nowS, procUsage, run, startBench } from './lib/bench.mjs';

const args = process.argv.slice(2).filter((a, i, all) => a !== '--json' && all[i - 1] !== '--json');
const [A, B, rounds = '4'] = args;
if (!A || !B) throw new Error('usage: node bench/produce-ab.mjs <checkoutA> <checkoutB> [rounds]');
const b = await startBench('produce-ab', { env: { N: 2_000_000 }, params: { a: resolve(A), b: resolve(B), rounds: Number(rounds), recordBytes: 100, acks: 1 } });
const { N } = b.params;
const input = await linesFile(join(b.work, 'lines.txt'), N);

const brokers = {};
for (const [k, root, id] of [['A', A, 1], ['B', B, 2]]) {
  const zk = await b.zookeeper();
  brokers[k] = await b.startBroker({ id, zookeeperConnect: zk.connectString, gregorRoot: resolve(root) });
}

const runs = { A: [], B: [] };
for (let i = 0; i < Number(rounds); i++) {
  for (const k of i % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
    const broker = brokers[k];
    const topic = `ab-${i}`;
    const client = new KafkaClient({ brokers: broker.bootstrapServer });
    await createTopicRetrying(new Admin(client), topic, 1);
    await client.close();
    const u0 = procUsage(broker.pid);
    const t = nowS();
    await run('kcat', kcatProduceArgs(broker.bootstrapServer, topic, input, 'acks=1'));
    const secs = nowS() - t;
    const u1 = procUsage(broker.pid);
    const perM = (x) => (x * 1e6) / N;
    const row = { rate: Math.round(N / secs), userPerM: perM(u1.userSeconds - u0.userSeconds), systemPerM: perM(u1.systemSeconds - u0.systemSeconds), faultsPerM: Math.round(perM(u1.minorFaults - u0.minorFaults)) };
    runs[k].push(row);
    console.log(`${k} round ${i + 1}: ${row.rate.toLocaleString('en-US')} records/s; broker per 1M: user ${row.userPerM.toFixed(3)} s, system ${row.systemPerM.toFixed(3)} s, ${row.faultsPerM.toLocaleString('en-US')} page faults`);
  }
}
const results = {};
for (const k of ['A', 'B']) {
  const m = (f) => median(runs[k].map(f));
  results[k] = { recordsPerSec: m((x) => x.rate), userPerM: m((x) => x.userPerM), systemPerM: m((x) => x.systemPerM), faultsPerM: m((x) => x.faultsPerM), runs: runs[k] };
  console.log(`${k} (${k === 'A' ? A : B}): median ${Math.round(results[k].recordsPerSec).toLocaleString('en-US')} records/s; broker per 1M: user ${results[k].userPerM.toFixed(3)} s, system ${results[k].systemPerM.toFixed(3)} s, ${Math.round(results[k].faultsPerM).toLocaleString('en-US')} page faults`);
}
await b.finish(results);
