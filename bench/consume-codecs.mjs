#!/usr/bin/env node
// gregor's own consumer (the client's Consumer) reading N records of ~100 bytes from one partition for each
// codec (none, gzip, snappy, lz4, zstd), rounds interleaved so every codec sees the same machine load. The
// topics are written once with gregor's producer. Also: stored bytes per codec, and decoding alone
// (decodeRecordSet over the stored segment, no network) so the codec's share of the consumer's time shows.
//
//   npm run build && node bench/consume-codecs.mjs [--json <file>] [--full]    env: N=100000 (--full: 500000) ROUNDS=3
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, Consumer, KafkaClient, Producer } from '@gregor/client';
import { decodeRecordSet } from '@gregor/protocol';
import { fmt, median, nowS as now, startBench } from './lib/bench.mjs';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const b = await startBench('consume-codecs', { env: { N: [100_000, 500_000], ROUNDS: 3 }, params: { codecs: CODECS, recordBytes: 100 } });
const { N, ROUNDS } = b.params;

/** ~100-byte values shaped like application events: compressible, not trivially. */
function value(i) {
  return Buffer.from(`{"id":${i},"user":"u${(i * 7919) % 10007}","event":"${['view', 'click', 'buy', 'scroll'][i % 4]}","ts":${1_700_000_000_000 + i * 13},"v":${i % 997}}`.padEnd(100, ' '));
}

const { broker, bootstrap } = await b.singleBroker();
const client = new KafkaClient({ brokers: bootstrap });
b.onCleanup(() => client.close());
const rows = [];
{
  await new Admin(client).createTopics(CODECS.map((c) => ({ name: `codec-${c}`, numPartitions: 1, replicationFactor: 1 })));

  const stored = {};
  for (const codec of CODECS) {
    const producer = new Producer(client, { acks: 1, compression: codec, batchSize: 256 * 1024, lingerMs: 5 });
    for (let i = 0; i < N; i += 10_000) {
      const messages = [];
      for (let j = i; j < Math.min(N, i + 10_000); j++) messages.push({ key: `k${j % 1000}`, value: value(j) });
      await producer.send({ topic: `codec-${codec}`, messages });
    }
    const dir = join(broker.dataDir, `codec-${codec}-0`);
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

  console.log(`N=${N} records of 100 bytes, 1 partition, ${ROUNDS} rounds (medians)`);
  console.log('| codec | stored bytes | ratio | consumer rec/s | consumer MB/s (uncompressed values) | decode only rec/s |');
  console.log('|---|---|---|---|---|---|');
  const plainBytes = stored.none.reduce((n, b) => n + b.length, 0);
  for (const codec of CODECS) {
    const bytes = stored[codec].reduce((n, b) => n + b.length, 0);
    const rate = median(consumeRate[codec]);
    rows.push({ codec, storedBytes: bytes, ratio: plainBytes / bytes, consumerRecordsPerSec: rate, consumerRuns: consumeRate[codec], decodeRecordsPerSec: median(decodeRate[codec]), decodeRuns: decodeRate[codec] });
    console.log(`| ${codec} | ${fmt(bytes)} | ${(plainBytes / bytes).toFixed(1)}× | ${fmt(rate)} | ${((rate * 100) / 1e6).toFixed(1)} | ${fmt(median(decodeRate[codec]))} |`);
  }
}
await b.finish({ codecs: rows }, {
  charts: [
    { id: 'consume-codecs', title: `gregor's Consumer per codec, ${fmt(N)} × 100 B, 1 partition`, unit: 'records/s', bars: rows.map((r) => ({ label: r.codec, value: r.consumerRecordsPerSec, runs: r.consumerRuns })) },
    { id: 'consume-codecs-decode', title: 'Decoding alone (decodeRecordSet over the stored segments)', unit: 'records/s', bars: rows.map((r) => ({ label: r.codec, value: r.decodeRecordsPerSec, runs: r.decodeRuns })) },
  ],
});
