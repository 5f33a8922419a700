#!/usr/bin/env node
// Idempotent vs plain produce on one gregor broker, in the same run: kcat (librdkafka 2.0.2) producing N records
// of 100 bytes with acks=all, rounds alternating `enable.idempotence=true` (producer id, sequence numbers, at most
// 5 requests in flight per partition; the broker checks and caches every batch's sequence range) and plain
// (librdkafka's default in-flight limit). Prints both medians and their ratio, the broker's peak RSS, and the
// number of producer-state snapshots the broker wrote. Then the broker's own share in isolation: leader appends of
// small batches (10 records) into a partition log, with and without a producer id, in this process.
//
//   npm run build && node bench/idempotent.mjs [--json <file>] [--full]    env: N=200000 (--full: 1000000) ROUNDS=3 PARTITIONS=1 SEGMENT_BYTES=104857600
//   PLAIN_MAX_IN_FLIGHT=5 gives the plain runs idempotence's in-flight limit (a control: what the limit alone costs).
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, KafkaClient } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { encodeRecordBatch } from '@gregor/protocol';
import { PartitionLog } from '@gregor/storage';
import { fmt, fmtRuns, kcatProduceArgs, linesFile, median, nowS as now, run, startBench } from './lib/bench.mjs';

const PLAIN_MAX_IN_FLIGHT = process.env.PLAIN_MAX_IN_FLIGHT;
const b = await startBench('idempotent', { env: { N: [200_000, 1_000_000], ROUNDS: 3, PARTITIONS: 1, SEGMENT_BYTES: 100 * 1024 * 1024 }, params: { PLAIN_MAX_IN_FLIGHT: PLAIN_MAX_IN_FLIGHT ?? null, recordBytes: 100, acks: 'all' } });
const { N, ROUNDS, PARTITIONS, SEGMENT_BYTES } = b.params;
process.env.LOG_LEVEL ??= 'warn';

const inputFile = await linesFile(join(b.work, `lines-${N}.txt`), N);
const produceArgs = (brokers, topic, idempotent) => kcatProduceArgs(brokers, topic, inputFile, 'acks=all', `enable.idempotence=${idempotent}`,
  ...(!idempotent && PLAIN_MAX_IN_FLIGHT ? [`max.in.flight=${PLAIN_MAX_IN_FLIGHT}`] : []));

const { broker, bootstrap } = await b.singleBroker({ 'num.partitions': String(PARTITIONS), 'log.segment.bytes': String(SEGMENT_BYTES) });
const logDir = broker.dataDir;
const results = { plain: [], idempotent: [] };
let snapshots = 0;
{
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
  await b.close();
  for (const d of readdirSync(logDir, { withFileTypes: true })) {
    if (d.isDirectory() && d.name.startsWith('bench-idempotent')) snapshots += readdirSync(join(logDir, d.name)).filter((f) => f.endsWith('.snapshot')).length;
  }
}

/** Leader appends per second into one log: `batches` batches of 10 records of 100 bytes, pid -1 or one producer. */
function appendRate(idempotent, batches = 50_000) {
  const dir = join(b.work, `append-${idempotent}`);
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

console.log(`gregor single broker, ${fmt(N)} records of 100 bytes, ${PARTITIONS} partition(s), acks=all, ${ROUNDS} rounds each, alternating`);
console.log(`  produce  kcat -> gregor, plain${PLAIN_MAX_IN_FLIGHT ? ` (max.in.flight=${PLAIN_MAX_IN_FLIGHT})` : ''}               ${fmtRuns(results.plain)}`);
console.log(`  produce  kcat -> gregor, enable.idempotence  ${fmtRuns(results.idempotent)}`);
console.log(`  ratio    idempotent / plain                  ${(median(results.idempotent) / median(results.plain)).toFixed(2)} of the medians; ${median(results.plain.map((p, i) => results.idempotent[i] / p)).toFixed(2)} median of the per-round ratios (the two runs of a round are back to back, so machine load affects them alike)`);
const fmtB = (xs) => fmtRuns(xs, 'batches/s');
console.log(`  log append (10-record batches), plain       ${fmtB(appends.plain)}`);
console.log(`  log append (10-record batches), idempotent  ${fmtB(appends.idempotent)}`);
console.log(`  ratio    idempotent / plain (broker only)   ${(median(appends.idempotent) / median(appends.plain)).toFixed(2)}`);
console.log(`  producer-state snapshots (idempotent topics) ${snapshots} (segment.bytes ${SEGMENT_BYTES})`);
await b.finish({ produce: results, appends, snapshots, ratio: median(results.idempotent) / median(results.plain), appendRatio: median(appends.idempotent) / median(appends.plain) }, {
  charts: [
    { id: 'idempotent-produce', title: `kcat acks=all, plain vs enable.idempotence, ${fmt(N)} × 100 B`, unit: 'records/s', bars: [
      { label: `plain${PLAIN_MAX_IN_FLIGHT ? ` (max.in.flight=${PLAIN_MAX_IN_FLIGHT})` : ''}`, value: median(results.plain), runs: results.plain },
      { label: 'idempotent', value: median(results.idempotent), runs: results.idempotent },
    ] },
  ],
});
