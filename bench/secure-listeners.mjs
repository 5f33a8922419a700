#!/usr/bin/env node
// Produce and consume throughput over PLAINTEXT, SSL and SASL_SSL (PLAIN) listeners of one broker, in the same
// run, rounds interleaved so each listener sees the same machine load. Clients: kcat (librdkafka), N records of
// 100 bytes per round, produced with acks=1 and read back from the beginning. SASL costs only at connect time;
// the difference between SSL and PLAINTEXT is TLS (Node's tls on the broker).
//
//   npm run build && node bench/secure-listeners.mjs      env: N=300000 ROUNDS=3
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.N ?? 300_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), 'gregor-bench-secure-'));
const { ZooKeeperNode, freePorts, generateCertificates } = await import(join(root, 'packages/launcher/dist/index.js'));

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

function kcat(args, input) {
  const r = spawnSync('kcat', args, { input, maxBuffer: 1 << 30, timeout: 300_000 });
  if (r.status !== 0) throw new Error(`kcat ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const certs = generateCertificates(join(work, 'certs'), [{ name: 'broker', hosts: ['localhost', '127.0.0.1'] }]);
const [zkPort, internal, plain, ssl, saslSsl] = await freePorts(5);
const zkNode = new ZooKeeperNode({ id: 1, dir: join(work, 'zk'), clientPort: zkPort, tickTime: 500 });
await zkNode.start();
const brokerDir = join(work, 'broker');
mkdirSync(brokerDir, { recursive: true });
writeFileSync(join(brokerDir, 'server.properties'), [
  'broker.id=1',
  `listeners=INTERNAL://127.0.0.1:${internal},PLAINTEXT://127.0.0.1:${plain},SSL://127.0.0.1:${ssl},SASL_SSL://127.0.0.1:${saslSsl}`,
  'listener.security.protocol.map=INTERNAL:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL',
  'inter.broker.listener.name=INTERNAL',
  `ssl.keystore.location=${certs.issued.get('broker').keystoreFile}`,
  `ssl.truststore.location=${certs.caFile}`,
  'sasl.enabled.mechanisms=PLAIN',
  'listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_bench="bench-secret";',
  `log.dirs=${brokerDir}/data`, `zookeeper.connect=${zkNode.connectString}`, 'http.port=-1', 'num.partitions=1',
].join('\n'));
const broker = spawn(process.execPath, [join(root, 'packages/cli/dist/main.js'), 'broker', '--config', join(brokerDir, 'server.properties')], {
  stdio: ['ignore', 'ignore', openSync(join(brokerDir, 'broker.log'), 'a')],
});
const LISTENERS = {
  PLAINTEXT: ['-b', `127.0.0.1:${plain}`],
  SSL: ['-b', `127.0.0.1:${ssl}`, '-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${certs.caFile}`],
  SASL_SSL: ['-b', `127.0.0.1:${saslSsl}`, '-X', 'security.protocol=SASL_SSL', '-X', `ssl.ca.location=${certs.caFile}`, '-X', 'sasl.mechanisms=PLAIN', '-X', 'sasl.username=bench', '-X', 'sasl.password=bench-secret'],
};
try {
  await waitPort(plain);
  await new Promise((r) => setTimeout(r, 2000));
  const line = `${'x'.repeat(99)}\n`;
  const input = Buffer.from(line.repeat(N));
  const produce = Object.fromEntries(Object.keys(LISTENERS).map((l) => [l, []]));
  const consume = Object.fromEntries(Object.keys(LISTENERS).map((l) => [l, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of Object.entries(LISTENERS)) {
      const topic = `bench-${name.toLowerCase()}-${round}`;
      let t0 = now();
      kcat([...args, '-P', '-t', topic, '-X', 'acks=1', '-X', 'linger.ms=5', '-X', 'batch.size=262144'], input);
      produce[name].push(N / (now() - t0));
      t0 = now();
      const out = kcat([...args, '-C', '-t', topic, '-o', 'beginning', '-e', '-q']);
      consume[name].push(N / (now() - t0));
      if (out.length !== input.length) throw new Error(`${name}: read ${out.length} bytes, wrote ${input.length}`);
    }
  }
  console.log(`secure listeners: ${fmt(N)} records of 100 B per round, ${ROUNDS} rounds (median), kcat/librdkafka, load ${loadavg()[0].toFixed(2)}`);
  console.log('| listener | produce records/s | produce MB/s | consume records/s | consume MB/s |');
  console.log('|---|---|---|---|---|');
  for (const name of Object.keys(LISTENERS)) {
    const p = median(produce[name]);
    const c = median(consume[name]);
    console.log(`| ${name} | ${fmt(p)} | ${((p * 100) / 1e6).toFixed(1)} | ${fmt(c)} | ${((c * 100) / 1e6).toFixed(1)} |`);
  }
} finally {
  broker.kill('SIGTERM');
  await new Promise((r) => broker.once('exit', r));
  await zkNode.kill();
  rmSync(work, { recursive: true, force: true });
}
