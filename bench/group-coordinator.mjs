#!/usr/bin/env node
// The broker-side group coordinator and the Reader, on this machine (a ZooKeeper node and one broker process,
// __consumer_offsets with 5 partitions, a 12-partition topic, records of 100 bytes):
//  1. time for a 10-member group to reach Stable: (a) 10 members joining an empty group (the coordinator waits
//     group.initial.rebalance.delay.ms = DELAY_MS first), (b) a 10th member joining a Stable 9-member group
//     (members heartbeat every HEARTBEAT_MS and rejoin on REBALANCE_IN_PROGRESS);
//  2. OffsetCommit throughput on one coordinator (CLIENTS connections x INFLIGHT commits in flight, one
//     partition per commit, acks=-1 to __consumer_offsets) for COMMIT_SECONDS;
//  3. consume throughput of one Reader (fetchMessage + commitMessages merged every second) over N records.
//
//   npm run build && node bench/group-coordinator.mjs [--json <file>] [--full]   env: N=100000 (--full: 300000) DELAY_MS=3000 HEARTBEAT_MS=500 CLIENTS=8 INFLIGHT=64 COMMIT_SECONDS=5
import { Admin, GroupMembership, KafkaClient, KafkaOffsetStore, Producer, Reader } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { createTopicRetrying, fmt, nowMs as now, sleep, startBench } from './lib/bench.mjs';

const PARTITIONS = 12;
const TOPIC = 'bench';
const b = await startBench('group-coordinator', { env: { N: [100_000, 300_000], DELAY_MS: 3000, HEARTBEAT_MS: 500, CLIENTS: 8, INFLIGHT: 64, COMMIT_SECONDS: 5 }, params: { PARTITIONS } });
const { N, DELAY_MS, HEARTBEAT_MS, CLIENTS, INFLIGHT, COMMIT_SECONDS } = b.params;
process.env.LOG_LEVEL ??= 'warn';

// --- cluster: one ZooKeeper, one broker process ----------------------------------------------
const { bootstrap } = await b.singleBroker({
  'offsets.topic.num.partitions': '5', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': String(DELAY_MS),
});
const client = new KafkaClient({ brokers: bootstrap });
b.onCleanup(() => client.close());
await createTopicRetrying(new Admin(client), TOPIC, PARTITIONS);
const results = {};

/** A group member on its own connections: join+sync, then heartbeats; REBALANCE_IN_PROGRESS -> rejoin. */
class Member {
  constructor(groupId) {
    this.client = new KafkaClient({ brokers: bootstrap, clientId: 'bench-member' });
    this.membership = new GroupMembership(this.client, { groupId, topics: [TOPIC], sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, balancers: ['range'], logger: silentLogger() });
    this.generation = null;
    this.stopped = false;
    this.loop = this.#run();
  }
  async #run() {
    while (!this.stopped) {
      try {
        this.generation = await this.membership.join();
      } catch {
        await sleep(50);
        continue;
      }
      while (!this.stopped) {
        await sleep(HEARTBEAT_MS);
        if ((await this.membership.heartbeat(this.generation)) !== 0) break;
      }
    }
  }
  async stop() {
    this.stopped = true;
    await this.loop;
    await this.membership.leave();
    await this.client.close();
  }
}

{
  // --- 1. group formation ------------------------------------------------------------------------
  await new KafkaOffsetStore(client, 'bench-warm').fetch([{ topic: TOPIC, partition: 0 }]); // creates __consumer_offsets
  const members = [];
  const t0 = now();
  for (let i = 0; i < 10; i++) members.push(new Member('bench-group'));
  const stable = (n, generation) => members.length >= n && members.every((m) => m.generation && m.generation.generationId >= generation) && new Set(members.map((m) => m.generation.generationId)).size === 1;
  while (!stable(10, 1)) await sleep(5);
  results.initialStableMs = now() - t0;
  console.log(`10 members join an empty group -> all synced in one generation: ${fmt(results.initialStableMs)} ms (group.initial.rebalance.delay.ms=${DELAY_MS}; ${fmt(results.initialStableMs - DELAY_MS)} ms beyond it)`);
  const leaving = members.pop();
  await leaving.stop();
  while (!stable(9, 2)) await sleep(5);
  const before = members[0].generation.generationId;
  const t1 = now();
  members.push(new Member('bench-group'));
  while (!stable(10, before + 1)) await sleep(5);
  results.joinStableMs = now() - t1;
  console.log(`a 10th member joins a Stable 9-member group -> all synced in the next generation: ${fmt(results.joinStableMs)} ms (heartbeat every ${HEARTBEAT_MS} ms)`);
  await Promise.all(members.map((m) => m.stop()));

  // --- 2. commit throughput ------------------------------------------------------------------------
  const stores = await Promise.all(Array.from({ length: CLIENTS }, async () => {
    const c = new KafkaClient({ brokers: bootstrap });
    const s = new KafkaOffsetStore(c, 'bench-commits');
    await s.coordinator();
    return { c, s };
  }));
  let commits = 0;
  const commitUntil = now() + COMMIT_SECONDS * 1000;
  const t2 = now();
  await Promise.all(stores.flatMap(({ s }) => Array.from({ length: INFLIGHT }, async (_, i) => {
    let offset = 0;
    while (now() < commitUntil) {
      await s.commit([{ topic: TOPIC, partition: i % PARTITIONS, offset: ++offset }]);
      commits++;
    }
  })));
  results.commitsPerSec = (commits / (now() - t2)) * 1000;
  console.log(`OffsetCommit on one coordinator (${CLIENTS} connections x ${INFLIGHT} in flight, acks=-1, RF 1): ${fmt(results.commitsPerSec)} commits/s`);
  await Promise.all(stores.map(({ c }) => c.close()));

  // --- 3. Reader consume throughput --------------------------------------------------------------
  const producer = new Producer(client, { acks: 1, batchSize: 262_144, lingerMs: 5 });
  const value = Buffer.alloc(100, 'x');
  const batch = Array.from({ length: 5000 }, () => ({ value }));
  for (let sent = 0; sent < N; sent += 5000) await producer.send({ topic: TOPIC, messages: batch });
  const reader = new Reader({ brokers: bootstrap, groupId: 'bench-reader', topic: TOPIC, commitIntervalMs: 1000, queueCapacity: 10_000, heartbeatIntervalMs: 1000 });
  const started = now();
  let read = 0;
  let firstAt = 0;
  while (read < N) {
    const m = await reader.fetchMessage();
    if (read === 0) firstAt = now();
    read++;
    if (read % 1000 === 0) await reader.commitMessages(m);
  }
  const ms = now() - firstAt;
  results.readerRecordsPerSec = (read / ms) * 1000;
  console.log(`consume, 1 Reader (fetchMessage, commits merged every 1 s): ${fmt(results.readerRecordsPerSec)} records/s (${read} records in ${(ms / 1000).toFixed(2)} s after the first; ${((firstAt - started) / 1000).toFixed(2)} s to join, sync and fetch)`);
  await reader.close();
}
await b.finish(results, {
  charts: [
    { id: 'group-coordinator-rebalance', title: `Group of 10 members to Stable (initial delay ${DELAY_MS} ms)`, unit: 'ms', bars: [
      { label: '10 join an empty group', value: results.initialStableMs },
      { label: 'a 10th joins a Stable group', value: results.joinStableMs },
    ] },
    { id: 'group-coordinator-throughput', title: 'Group coordinator and Reader, 1 broker', unit: 'per second', bars: [
      { label: 'OffsetCommit / s', value: results.commitsPerSec },
      { label: 'Reader records / s', value: results.readerRecordsPerSec },
    ] },
  ],
});
process.exit(0);
