#!/usr/bin/env node
// The ZooKeeper consumer connector and the producer client, on this machine (a ZooKeeper node and one
// broker process, a 12-partition topic, records of 100 bytes):
//  1. producer client throughput, acks=1 (N records, CONCURRENCY sends of BATCH records in flight);
//  2. consume throughput of one connector with 1 stream and with 4 streams (a new group each time,
//     auto.offset.reset=smallest, until all N records are read), ROUNDS rounds in alternating order after WARMUP_ROUNDS;
//  3. time from a member's death (kill -9 of a `gregor consume --group` process) to every partition
//     owned again by the surviving member (zookeeper.session.timeout.ms=SESSION_MS).
//
//   npm run build && node bench/consumer-connector.mjs [--json <file>] [--full]   env: N=200000 (--full: 1000000) ROUNDS=3 (--full: 10) WARMUP_ROUNDS=1 STREAMS=1,4 BATCH=5000 CONCURRENCY=4 BATCH_SIZE=262144 LINGER_MS=5 SESSION_MS=6000
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { ZookeeperConsumerConnector } from '@gregor/consumer';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { createTopicRetrying, fmt, fmtPaired, fmtRuns, median, nowMs as now, pairedRatios, root, sleep, startBench } from './lib/bench.mjs';

const PARTITIONS = 12;
/** The stream counts measured, in this order in even rounds and reversed in odd ones (STREAMS=4 alone, to profile it). */
const STREAMS = (process.env.STREAMS ?? '1,4').split(',').map(Number);
const TOPIC = 'bench';
const b = await startBench('consumer-connector', { env: { N: [200_000, 1_000_000], ROUNDS: [3, 10], WARMUP_ROUNDS: 1, BATCH: 5000, CONCURRENCY: 4, SESSION_MS: 6000, BATCH_SIZE: 262_144, LINGER_MS: 5 }, params: { PARTITIONS } });
const { N, ROUNDS, WARMUP_ROUNDS, BATCH, CONCURRENCY, SESSION_MS, BATCH_SIZE, LINGER_MS } = b.params;
process.env.LOG_LEVEL ??= 'warn';

// --- cluster: one ZooKeeper, one broker process ----------------------------------------------
const { zk: zkNode, bootstrap } = await b.singleBroker();
const zkConnect = zkNode.connectString;
const client = new KafkaClient({ brokers: bootstrap });
b.onCleanup(() => client.close());
await createTopicRetrying(new Admin(client), TOPIC, PARTITIONS);
const results = {};
{
  // --- 1. producer ---------------------------------------------------------------------------
  const producer = new Producer(client, { acks: 1, batchSize: BATCH_SIZE, lingerMs: LINGER_MS });
  const value = Buffer.alloc(100, 'x');
  const batch = Array.from({ length: BATCH }, () => ({ value }));
  await producer.send({ topic: TOPIC, messages: batch.slice(0, 100) }); // metadata, connections
  let sent = 100;
  const t0 = now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < N) {
        const n = Math.min(BATCH, N - sent);
        sent += n;
        await producer.send({ topic: TOPIC, messages: n === BATCH ? batch : batch.slice(0, n) });
      }
    }),
  );
  const produceMs = now() - t0;
  results.producerRecordsPerSec = ((N - 100) / produceMs) * 1000;
  console.log(`producer (acks=1, batch.size=${BATCH_SIZE}, linger.ms=${LINGER_MS}, ${CONCURRENCY} x ${BATCH}-record sends in flight): ${fmt(results.producerRecordsPerSec)} records/s, ${(((N - 100) * 100) / produceMs / 1000).toFixed(1)} MB/s of values`);

  // --- 2. consume ----------------------------------------------------------------------------
  // ROUNDS rounds of 1 and 4 streams, the order alternating between rounds, after WARMUP_ROUNDS uncounted ones: the
  // first consume in this process also pays for the JIT compiling the consumer's path, which once made whichever
  // configuration ran first look slower.
  const runs = Object.fromEntries(STREAMS.map((s) => [s, []]));
  const cpuRuns = Object.fromEntries(STREAMS.map((s) => [s, []]));
  for (let round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
    for (const streams of round % 2 === 0 ? STREAMS : [...STREAMS].reverse()) {
      const connector = await ZookeeperConsumerConnector.create(
        { 'group.id': `bench-${streams}-${round}`, 'zookeeper.connect': zkConnect, 'auto.offset.reset': 'smallest', 'queued.max.message.chunks': '4' },
        { logger: silentLogger() },
      );
      const started = now();
      const cpu0 = process.cpuUsage();
      const created = await connector.createMessageStreams({ [TOPIC]: streams });
      let read = 0;
      let firstAt = 0;
      await Promise.all(
        created[TOPIC].map(async (s) => {
          for await (const _m of s) {
            if (read === 0) firstAt = now();
            if (++read >= N) void connector.shutdown();
          }
        }),
      );
      const ms = now() - firstAt;
      const cpu = process.cpuUsage(cpu0);
      const cpuPerM = (cpu.user + cpu.system) / read; // µs per record = CPU-s per 1M; this process: steadier than rates on a loaded machine
      const rate = (read / ms) * 1000;
      await connector.shutdown();
      if (round < 0) continue;
      runs[streams].push(rate);
      cpuRuns[streams].push(cpuPerM);
      console.log(`  round ${round + 1}, ${streams} stream(s): ${fmt(rate)} records/s (${read} records in ${(ms / 1000).toFixed(2)} s after the first; ${((firstAt - started) / 1000).toFixed(2)} s to register, rebalance and fetch; ${cpuPerM.toFixed(2)} CPU-s per 1M records)`);
    }
  }
  for (const streams of STREAMS) {
    results[`consume${streams}`] = median(runs[streams]);
    results[`consume${streams}Runs`] = runs[streams];
    results[`consume${streams}CpuSecsPerM`] = median(cpuRuns[streams]);
    console.log(`consume, 1 connector, ${streams} stream(s): ${fmtRuns(runs[streams])} (${ROUNDS} rounds after ${WARMUP_ROUNDS} uncounted; ${results[`consume${streams}CpuSecsPerM`].toFixed(2)} CPU-s per 1M records)`);
  }
  // Within a round the stream counts run back to back, so their ratio is paired: this machine's speed moves by a
  // third within a minute (a round's rate with the same stream count goes from 1.3M to 2.5M), which the medians of
  // separate runs carry and a round's ratio cancels.
  for (const streams of STREAMS.slice(1)) {
    const paired = pairedRatios(runs[STREAMS[0]], runs[streams]);
    results[`consume${streams}To${STREAMS[0]}`] = { perRound: paired.ratios, median: paired.median, ci95: paired.ci95 };
    console.log(`  ${streams} / ${STREAMS[0]} stream(s), paired by round: ${fmtPaired(paired)}`);
  }
  // --- 3. member death to full re-ownership --------------------------------------------------
  const common = { 'group.id': 'bench-death', 'zookeeper.connect': zkConnect, 'zookeeper.session.timeout.ms': String(SESSION_MS), 'rebalance.backoff.ms': '500', 'rebalance.max.retries': '10' };
  const survivor = await ZookeeperConsumerConnector.create({ ...common, 'consumer.id': 'survivor' }, { logger: silentLogger() });
  await survivor.createMessageStreams({ [TOPIC]: 1 });
  const victim = spawn(process.execPath, [join(root, 'packages/cli/dist/main.js'), 'consume', '--group', 'bench-death', '--topic', TOPIC, '--zookeeper', zkConnect,
    '--consumer-property', 'consumer.id=victim', '--consumer-property', `zookeeper.session.timeout.ms=${SESSION_MS}`], { stdio: ['ignore', 'ignore', 'ignore'] });
  const zkc = await ZkClient.connect({ connectString: zkConnect, logger: silentLogger() });
  const zk = new KafkaZkClient(zkc);
  const ownedBy = async (prefix) => (await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => zk.getPartitionOwner('bench-death', TOPIC, p)))).filter((o) => o?.startsWith(prefix)).length;
  while ((await ownedBy('bench-death_victim-')) !== PARTITIONS / 2 || (await ownedBy('bench-death_survivor-')) !== PARTITIONS / 2) await sleep(50);
  const killedAt = now();
  victim.kill('SIGKILL');
  while ((await ownedBy('bench-death_survivor-')) !== PARTITIONS) await sleep(20);
  results.reownMs = now() - killedAt;
  console.log(`member killed -9 -> all ${PARTITIONS} partitions owned again: ${fmt(results.reownMs)} ms (zookeeper.session.timeout.ms=${SESSION_MS}; target ${SESSION_MS + 2000} ms)`);
  await survivor.shutdown();
  await zkc.close();
}
await b.finish(results, {
  charts: [
    { id: 'consumer-connector', title: `Producer client and ZooKeeper connector, 1 broker, ${PARTITIONS} partitions, ${fmt(N)} × 100 B`, unit: 'records/s', bars: [
      { label: 'producer client, acks=1', value: results.producerRecordsPerSec },
      ...STREAMS.map((s) => ({ label: `connector, ${s} stream${s === 1 ? '' : 's'}`, value: results[`consume${s}`], runs: results[`consume${s}Runs`] })),
    ] },
  ],
});
process.exit(0);
