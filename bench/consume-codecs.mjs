#!/usr/bin/env node
// gregor's own consumer (the client's Consumer) reading N records of ~100 bytes from one partition for each
// codec (none, gzip, snappy, lz4, zstd), rounds interleaved so every codec sees the same machine load. The
// topics are written once with gregor's producer. Also: stored bytes per codec, and decoding alone
// (decodeRecordSet over the stored segment, no network) so the codec's share of the consumer's time shows.
//
//   npm run build && node bench/consume-codecs.mjs      env: N=500000 ROUNDS=3
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.N ?? 500_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), 'gregor-bench-codecs-'));
const { ZooKeeperNode, freePorts } = await import(join(root, 'packages/launcher/dist/index.js'));
const { Admin, Consumer, KafkaClient, Producer } = await import(join(root, 'packages/client/dist/index.js'));
const { decodeRecordSet } = await import(join(root, 'packages/protocol/dist/index.js'));

const now = () => Number(process.hrtime.bigint()) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

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

/** ~100-byte values shaped like application events: compressible, not trivially. */
function value(i) {
  return Buffer.from(`{"id":${i},"user":"u${(i * 7919) % 10007}","event":"${['view', 'click', 'buy', 'scroll'][i % 4]}","ts":${1_700_000_000_000 + i * 13},"v":${i % 997}}`.padEnd(100, ' '));
}

const [zkPort, brokerPort] = await freePorts(2);
const zkNode = new ZooKeeperNode({ id: 1, dir: join(work, 'zk'), clientPort: zkPort, tickTime: 500 });
await zkNode.start();
const brokerDir = join(work, 'broker');
mkdirSync(brokerDir, { recursive: true });
writeFileSync(join(brokerDir, 'server.properties'), [
  'broker.id=1', `listeners=PLAINTEXT://127.0.0.1:${brokerPort}`, `log.dirs=${brokerDir}/data`, `zookeeper.connect=${zkNode.connectString}`, 'http.port=-1',
].join('\n'));
const broker = spawn(process.execPath, [join(root, 'packages/cli/dist/main.js'), 'broker', '--config', join(brokerDir, 'server.properties')], {
  stdio: ['ignore', 'ignore', openSync(join(brokerDir, 'broker.log'), 'a')],
});
let client;
try {
  await waitPort(brokerPort);
  client = new KafkaClient({ brokers: `127.0.0.1:${brokerPort}` });
  await new Admin(client).createTopics(CODECS.map((c) => ({ name: `codec-${c}`, numPartitions: 1, replicationFactor: 1 })));

  const stored = {};
  for (const codec of CODECS) {
    const producer = new Producer(client, { acks: 1, compression: codec, batchSize: 256 * 1024, lingerMs: 5 });
    for (let i = 0; i < N; i += 10_000) {
      const messages = [];
      for (let j = i; j < Math.min(N, i + 10_000); j++) messages.push({ key: `k${j % 1000}`, value: value(j) });
      await producer.send({ topic: `codec-${codec}`, messages });
    }
    const dir = join(brokerDir, 'data', `codec-${codec}-0`);
    stored[codec] = readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => readFileSync(join(dir, f)));
  }

  const consumeRate = Object.fromEntries(CODECS.map((c) => [c, []]));
  const decodeRate = Object.fromEntries(CODECS.map((c) => [c, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const codec of CODECS) {
      const consumer = new Consumer(client, { maxWaitMs: 100, maxPartitionFetchBytes: 4 << 20 });
      const t0 = now();
      let n = 0;
      for await (const _ of consumer.consume({ topic: `codec-${codec}`, untilEnd: true })) n++;
      const t = now() - t0;
      if (n !== N) throw new Error(`${codec}: consumed ${n} of ${N}`);
      consumeRate[codec].push(N / t);

      const d0 = now();
      let decoded = 0;
      for (const segment of stored[codec]) for (const b of decodeRecordSet(segment)) decoded += b.records.length;
      if (decoded !== N) throw new Error(`${codec}: decoded ${decoded} of ${N}`);
      decodeRate[codec].push(N / (now() - d0));
    }
  }

  console.log(`N=${N} records of 100 bytes, 1 partition, ${ROUNDS} rounds (medians); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('| codec | stored bytes | ratio | consumer rec/s | consumer MB/s (uncompressed values) | decode only rec/s |');
  console.log('|---|---|---|---|---|---|');
  const plainBytes = stored.none.reduce((n, b) => n + b.length, 0);
  for (const codec of CODECS) {
    const bytes = stored[codec].reduce((n, b) => n + b.length, 0);
    const rate = median(consumeRate[codec]);
    console.log(`| ${codec} | ${fmt(bytes)} | ${(plainBytes / bytes).toFixed(1)}× | ${fmt(rate)} | ${((rate * 100) / 1e6).toFixed(1)} | ${fmt(median(decodeRate[codec]))} |`);
  }
} finally {
  await client?.close();
  broker.kill('SIGTERM');
  await new Promise((r) => broker.on('exit', r));
  await zkNode.kill();
  rmSync(work, { recursive: true, force: true });
}
