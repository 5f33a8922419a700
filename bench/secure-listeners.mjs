#!/usr/bin/env node
// Produce and consume throughput over PLAINTEXT, SSL and SASL_SSL (PLAIN) listeners of one broker, in the same
// run, rounds interleaved so each listener sees the same machine load. Clients: kcat (librdkafka), N records of
// 100 bytes per round, produced with acks=1 and read back from the beginning. SASL costs only at connect time;
// the difference between SSL and PLAINTEXT is TLS (Node's tls on the broker).
//
//   npm run build && node bench/secure-listeners.mjs [--json <file>] [--full]    env: N=100000 (--full: 300000) ROUNDS=3
import { join } from 'node:path';
import { generateCertificates, freePorts } from '@gregor/launcher';
import { fmt, median, nowS as now, run, startBench } from './lib/bench.mjs';

const b = await startBench('secure-listeners', { env: { N: [100_000, 300_000], ROUNDS: 3 }, params: { recordBytes: 100 } });
const { N, ROUNDS } = b.params;
const kcat = (args, input) => run('kcat', args, { input, stdout: 'pipe' });

const certs = generateCertificates(join(b.work, 'certs'), [{ name: 'broker', hosts: ['localhost', '127.0.0.1'] }]);
const [internal, plain, ssl, saslSsl] = await freePorts(4);
const zkNode = await b.zookeeper();
await b.startBroker({ zookeeperConnect: zkNode.connectString, port: internal, props: {
  listeners: `INTERNAL://127.0.0.1:${internal},PLAINTEXT://127.0.0.1:${plain},SSL://127.0.0.1:${ssl},SASL_SSL://127.0.0.1:${saslSsl}`,
  'listener.security.protocol.map': 'INTERNAL:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL',
  'inter.broker.listener.name': 'INTERNAL',
  'ssl.keystore.location': certs.issued.get('broker').keystoreFile,
  'ssl.truststore.location': certs.caFile,
  'sasl.enabled.mechanisms': 'PLAIN',
  'listener.name.sasl_ssl.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_bench="bench-secret";',
  'num.partitions': '1',
} });
const LISTENERS = {
  PLAINTEXT: ['-b', `127.0.0.1:${plain}`],
  SSL: ['-b', `127.0.0.1:${ssl}`, '-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${certs.caFile}`],
  SASL_SSL: ['-b', `127.0.0.1:${saslSsl}`, '-X', 'security.protocol=SASL_SSL', '-X', `ssl.ca.location=${certs.caFile}`, '-X', 'sasl.mechanisms=PLAIN', '-X', 'sasl.username=bench', '-X', 'sasl.password=bench-secret'],
};
const rows = [];
{
  await new Promise((r) => setTimeout(r, 2000));
  const line = `${'x'.repeat(99)}\n`;
  const input = Buffer.from(line.repeat(N));
  const produce = Object.fromEntries(Object.keys(LISTENERS).map((l) => [l, []]));
  const consume = Object.fromEntries(Object.keys(LISTENERS).map((l) => [l, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of Object.entries(LISTENERS)) {
      const topic = `bench-${name.toLowerCase()}-${round}`;
      let t0 = now();
      await kcat([...args, '-P', '-t', topic, '-X', 'acks=1', '-X', 'linger.ms=5', '-X', 'batch.size=262144'], input);
      produce[name].push(N / (now() - t0));
      t0 = now();
      const out = await kcat([...args, '-C', '-t', topic, '-o', 'beginning', '-e', '-q']);
      consume[name].push(N / (now() - t0));
      if (out.length !== input.length) throw new Error(`${name}: read ${out.length} bytes, wrote ${input.length}`);
    }
  }
  console.log(`secure listeners: ${fmt(N)} records of 100 B per round, ${ROUNDS} rounds (median), kcat/librdkafka`);
  console.log('| listener | produce records/s | produce MB/s | consume records/s | consume MB/s |');
  console.log('|---|---|---|---|---|');
  for (const name of Object.keys(LISTENERS)) {
    const p = median(produce[name]);
    const c = median(consume[name]);
    rows.push({ listener: name, produceRecordsPerSec: p, produceRuns: produce[name], consumeRecordsPerSec: c, consumeRuns: consume[name] });
    console.log(`| ${name} | ${fmt(p)} | ${((p * 100) / 1e6).toFixed(1)} | ${fmt(c)} | ${((c * 100) / 1e6).toFixed(1)} |`);
  }
}
await b.finish({ listeners: rows }, {
  charts: [
    { id: 'secure-listeners-produce', title: `Produce per listener, kcat acks=1, ${fmt(N)} × 100 B`, unit: 'records/s', bars: rows.map((r) => ({ label: r.listener, value: r.produceRecordsPerSec, runs: r.produceRuns })) },
    { id: 'secure-listeners-consume', title: `Consume per listener, kcat, ${fmt(N)} × 100 B`, unit: 'records/s', bars: rows.map((r) => ({ label: r.listener, value: r.consumeRecordsPerSec, runs: r.consumeRuns })) },
  ],
});
