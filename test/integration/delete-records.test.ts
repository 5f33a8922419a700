import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Kafka, logLevel, type Admin as KafkaJsAdmin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import { partitionForGroup } from '@gregor/coordinator';
import { DeleteRecords, DescribeLogDirs, FindCoordinator, ListOffsets, OffsetDelete, OffsetFetch, type DescribeLogDirsResponse } from '@gregor/protocol';
import { kcat } from '../support/kcat.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { waitFor } from '../support/in-process-cluster.js';

/**
 * DeleteRecords (21), DescribeLogDirs (35) and OffsetDelete (47) across three broker processes, driven by real
 * clients: kafkajs 2.2.4 (deleteTopicRecords, fetchTopicOffsets, a consumer group), confluent-kafka 1.7 (Debian's
 * python3) and kcat (librdkafka 2.0.2). An RF-3 topic with small segments: after the delete, every replica's log
 * start offset moved (checkpoint file), its segments below were deleted from disk, readers start at the new start,
 * and a leader elected after killing the old one still starts there.
 */
const TOPIC = 'purge';
const RECORDS = 200;

describe('DeleteRecords, DescribeLogDirs and OffsetDelete (processes)', () => {
  let cluster: ProcessCluster;
  let kafka: Kafka;
  let admin: KafkaJsAdmin;
  const connections: Connection[] = [];

  const connect = async (brokerId: number): Promise<Connection> => {
    const c = new Connection({ host: '127.0.0.1', port: cluster.broker(brokerId).opts.port, requestTimeoutMs: 30_000 });
    connections.push(c);
    await c.connect();
    return c;
  };
  const partitionDir = (brokerId: number, p: number) => join(cluster.broker(brokerId).logDir, `${TOPIC}-${p}`);
  const segmentBases = (brokerId: number, p: number) =>
    readdirSync(partitionDir(brokerId, p))
      .filter((f) => f.endsWith('.log'))
      .map((f) => Number(f.slice(0, 20)))
      .sort((a, b) => a - b);
  /** What the broker wrote to log-start-offset-checkpoint for the partition (undefined before the first write). */
  const checkpointedLogStart = (brokerId: number, p: number): number | undefined => {
    const path = join(cluster.broker(brokerId).logDir, 'log-start-offset-checkpoint');
    if (!existsSync(path)) return undefined;
    const line = readFileSync(path, 'utf8').split('\n').find((l) => l.startsWith(`${TOPIC} ${p} `));
    return line ? Number(line.split(' ')[2]) : undefined;
  };
  const leaderOf = async (p: number) => (await cluster.partitionState(TOPIC, p))!.leader;
  const newAdmin = async (brokerIds: number[]) => {
    const k = new Kafka({ clientId: 'dr-it', brokers: brokerIds.map((id) => cluster.broker(id).bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 200 } });
    const a = k.admin();
    await a.connect();
    return a;
  };
  const partitionSizes = (res: DescribeLogDirsResponse) =>
    Object.fromEntries(res.results.flatMap((d) => d.topics.filter((t) => t.name === TOPIC).flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.partitionSize]))));

  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: 3,
      zookeepers: 1,
      brokerProps: {
        'replica.fetch.wait.max.ms': '200',
        'replica.fetch.backoff.ms': '200',
        'auto.leader.rebalance.enable': 'false',
        'offsets.topic.num.partitions': '3',
        'group.initial.rebalance.delay.ms': '0',
      },
    });
    kafka = new Kafka({ clientId: 'dr-it', brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 200 } });
    admin = kafka.admin();
    await admin.connect();
    const created = await admin.createTopics({
      topics: [
        {
          topic: TOPIC,
          numPartitions: 2,
          replicationFactor: 3,
          // Small segments so the delete spans several; deleted files go at once instead of after 60 s as *.deleted.
          configEntries: [
            { name: 'segment.bytes', value: '4096' },
            { name: 'file.delete.delay.ms', value: '0' },
          ],
        },
        { topic: 'other', numPartitions: 1, replicationFactor: 3 },
        { topic: 'compacted', numPartitions: 1, replicationFactor: 3, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] },
      ],
      waitForLeaders: true,
    });
    expect(created).toBe(true);
    for (const [t, p] of [[TOPIC, 0], [TOPIC, 1], ['other', 0], ['compacted', 0]] as const) {
      await waitFor(async () => (await cluster.kafkaZk.getPartitionState(t, p))?.state.isr.length === 3, 30_000, `${t}-${p} fully replicated`);
    }
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let i = 0; i < RECORDS / 10; i++) {
      for (const partition of [0, 1]) {
        await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ partition, value: `${partition}:${i * 10 + j}:${'x'.repeat(100)}` })) });
      }
    }
    await producer.disconnect();
  }, 180_000);

  afterAll(async () => {
    for (const c of connections) await c.close().catch(() => {});
    await admin?.disconnect().catch(() => {});
    await cluster?.stop();
  });

  it('kafkajs deleteTopicRecords: the low watermark moves on every replica, whose segments below it leave the disk', async () => {
    const before = await admin.fetchTopicOffsets(TOPIC);
    expect(before.map((o) => [o.partition, o.low, o.high]).sort()).toEqual([[0, '0', '200'], [1, '0', '200']]);
    const replicas = [1, 2, 3];
    // Every replica holds several segments, and all replicas have caught up (acks=-1).
    for (const id of replicas) for (const p of [0, 1]) expect(segmentBases(id, p).length).toBeGreaterThan(3);
    const sizesBefore = new Map<number, Record<number, number>>();
    for (const id of replicas) sizesBefore.set(id, partitionSizes(await (await connect(id)).send(DescribeLogDirs, { topics: [{ topic: TOPIC, partitions: [0, 1] }] })));

    // 125 is inside a batch of 10; -1 means the high watermark (everything).
    await admin.deleteTopicRecords({ topic: TOPIC, partitions: [{ partition: 0, offset: '125' }, { partition: 1, offset: '-1' }] });

    const after = await admin.fetchTopicOffsets(TOPIC);
    expect(after.map((o) => [o.partition, o.low, o.high]).sort()).toEqual([[0, '125', '200'], [1, '200', '200']]);
    for (const id of replicas) {
      // Followers follow from their fetch responses and checkpoint the new start (the leader synchronously).
      await waitFor(() => checkpointedLogStart(id, 0) === 125 && checkpointedLogStart(id, 1) === 200, 15_000, `broker ${id} checkpointed the new log starts`);
      for (const [p, start] of [[0, 125], [1, 200]] as const) {
        const bases = segmentBases(id, p);
        // Only whole segments go: the first one left holds the new start, none before it is left.
        expect(bases[0]!).toBeLessThanOrEqual(start);
        expect(bases.length === 1 || bases[1]! > start).toBe(true);
      }
      const sizes = partitionSizes(await (await connect(id)).send(DescribeLogDirs, { topics: null }));
      const old = sizesBefore.get(id)!;
      expect(sizes[0]).toBeGreaterThan(0);
      expect(sizes[0]).toBeLessThan(old[0]!);
      expect(sizes[1]).toBeLessThan(old[1]!);
    }
  });

  it('readers start at the new log start: kafkajs consumer, confluent-kafka 1.7 watermarks, kcat -Q and kcat below the start', async () => {
    // kafkajs: a new group reading from the earliest offset gets 125 first (the rest of its batch is skipped).
    const consumer = kafka.consumer({ groupId: 'from-earliest', maxWaitTimeInMs: 200 });
    const seen: { partition: number; offset: number }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ partition, message }) => void seen.push({ partition, offset: Number(message.offset) }) });
    await waitFor(() => seen.length >= 75, 30_000, 'kafkajs consumed what is left');
    await consumer.disconnect();
    expect(seen.length).toBe(75);
    expect(seen.every((m) => m.partition === 0)).toBe(true);
    expect(seen[0]!.offset).toBe(125);

    // confluent-kafka 1.7 (Debian): no AdminClient.delete_records in this version; its watermarks show the new start.
    const py = await run('/usr/bin/python3', [
      '-c',
      [
        'import sys',
        'from confluent_kafka import Consumer, TopicPartition',
        'from confluent_kafka.admin import AdminClient',
        "c = Consumer({'bootstrap.servers': sys.argv[1], 'group.id': 'py-watermarks'})",
        'for p in (0, 1):',
        "    lo, hi = c.get_watermark_offsets(TopicPartition('purge', p), timeout=10)",
        "    print(p, lo, hi)",
        "print('delete_records', hasattr(AdminClient, 'delete_records'))",
        'c.close()',
      ].join('\n'),
      cluster.bootstrap(),
    ]);
    expect(py.code, py.stderr).toBe(0);
    expect(py.stdout.trim().split('\n')).toEqual(['0 125 200', '1 200 200', 'delete_records False']);

    // kcat -Q: the earliest offset (timestamp -2) is the new start.
    const q = await kcat(['-b', cluster.bootstrap(), '-Q', '-t', `${TOPIC}:0:-2`]);
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout.toString()).toContain(`${TOPIC} [0] offset 125`);

    // kcat asked for an offset below the start: OFFSET_OUT_OF_RANGE, then auto.offset.reset decides.
    const earliest = await kcat(['-b', cluster.bootstrap(), '-C', '-t', TOPIC, '-p', '0', '-o', '10', '-c', '3', '-e', '-f', '%o\\n', '-X', 'auto.offset.reset=earliest']);
    expect(earliest.code, earliest.stderr).toBe(0);
    expect(earliest.stdout.toString().trim().split('\n')).toEqual(['125', '126', '127']);
    const latest = await kcat(['-b', cluster.bootstrap(), '-C', '-t', TOPIC, '-p', '0', '-o', '10', '-e', '-f', '%o\\n', '-X', 'auto.offset.reset=latest']);
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stdout.toString().trim()).toBe('');

    // The Fetch itself: a consumer fetch below the start is OFFSET_OUT_OF_RANGE carrying the start; ListOffsets earliest is it.
    const leader = await connect(await leaderOf(0));
    const listed = await leader.send(ListOffsets, { replicaId: -1, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -2 }] }] });
    expect(listed.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, offset: 125 });
  });

  it('a committed offset below the new log start: fetchOffsets returns it as is; kafkajs consumers reset per fromBeginning', async () => {
    const topic = 'stale';
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true })).toBe(true);
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, i) => ({ partition: 0, value: `s-${i}` })) });
    // Both groups commit 5 (OffsetCommit from an empty group), then DeleteRecords moves the log start to 50.
    for (const groupId of ['stale-earliest', 'stale-latest']) await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '5' }] });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '50' }] });
    expect((await admin.fetchTopicOffsets(topic)).map((o) => [o.low, o.high])).toEqual([['50', '100']]);
    // Kafka's OffsetFetch answers the committed offset as committed, whatever the log start is now.
    for (const groupId of ['stale-earliest', 'stale-latest']) {
      const [fetched] = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(fetched!.partitions).toEqual([{ partition: 0, offset: '5', metadata: null }]);
    }

    // Fetch at 5 is OFFSET_OUT_OF_RANGE; kafkajs resets to the earliest offset (fromBeginning: true): 50.
    const seen: number[] = [];
    const earliest = kafka.consumer({ groupId: 'stale-earliest', maxWaitTimeInMs: 200 });
    await earliest.connect();
    try {
      await earliest.subscribe({ topic, fromBeginning: true });
      await earliest.run({ autoCommitInterval: 100, eachMessage: async ({ message }) => void seen.push(Number(message.offset)) });
      await waitFor(() => seen.length >= 50, 30_000, 'the group read from the new log start');
      await waitFor(async () => (await admin.fetchOffsets({ groupId: 'stale-earliest', topics: [topic] }))[0]!.partitions[0]!.offset === '100', 15_000, 'the group committed 100');
    } finally {
      await earliest.disconnect();
    }
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => 50 + i));

    // fromBeginning: false resets to the latest offset instead (kafkajs commits its reset, -1 = latest): only
    // records produced after the reset arrive, none of 50-99. Produced until one arrives (the reset's ListOffsets may follow the first).
    const late: number[] = [];
    const latest = kafka.consumer({ groupId: 'stale-latest', maxWaitTimeInMs: 200 });
    await latest.connect();
    try {
      await latest.subscribe({ topic, fromBeginning: false });
      await latest.run({ autoCommitInterval: 100, eachMessage: async ({ message }) => void late.push(Number(message.offset)) });
      await waitFor(async () => (await admin.fetchOffsets({ groupId: 'stale-latest', topics: [topic] }))[0]!.partitions[0]!.offset !== '5', 15_000, 'the group reset its offset');
      for (let i = 0; i < 20 && late.length === 0; i++) {
        await producer.send({ topic, acks: -1, messages: [{ partition: 0, value: `after-reset-${i}` }] });
        await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      await latest.disconnect();
      await producer.disconnect();
    }
    expect(late.length).toBeGreaterThan(0);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(100);
  });

  it('waits for a live follower: REQUEST_TIMED_OUT while one is stopped (SIGSTOP), done once it follows', async () => {
    const state = (await cluster.partitionState(TOPIC, 0))!;
    const follower = state.isr.find((id) => id !== state.leader)!;
    const leader = await connect(state.leader);
    cluster.broker(follower).pause();
    try {
      const t0 = Date.now();
      const timedOut = await leader.send(DeleteRecords, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, offset: 150 }] }], timeoutMs: 1500 });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
      // The stopped follower (still alive in ZooKeeper) last reported 125.
      expect(timedOut.topics[0]!.partitions[0]).toEqual({ partitionIndex: 0, lowWatermark: 125, errorCode: ErrorCode.REQUEST_TIMED_OUT });
    } finally {
      cluster.broker(follower).resume();
    }
    const done = await leader.send(DeleteRecords, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, offset: 150 }] }], timeoutMs: 20_000 });
    expect(done.topics[0]!.partitions[0]).toEqual({ partitionIndex: 0, lowWatermark: 150, errorCode: 0 });
    await waitFor(() => checkpointedLogStart(follower, 0) === 150, 15_000, 'the resumed follower checkpointed 150');
  });

  it('a leader elected after kill -9 of the old one still starts at the new log start', async () => {
    const old = await leaderOf(0);
    await cluster.broker(old).kill();
    const elected = await waitFor(async () => {
      const s = await cluster.partitionState(TOPIC, 0);
      return s && s.leader >= 0 && s.leader !== old ? s.leader : null;
    }, 30_000, 'a new leader of partition 0');
    const rest = [1, 2, 3].filter((id) => id !== old);
    const a = await newAdmin(rest);
    try {
      const offsets = await waitFor(async () => {
        const o = (await a.fetchTopicOffsets(TOPIC)).find((x) => x.partition === 0);
        return o && o.high === '200' ? o : null;
      }, 30_000, 'offsets from the new leader');
      expect(offsets.low).toBe('150');
    } finally {
      await a.disconnect();
    }
    const fromNewLeader = await kcat(['-b', cluster.broker(elected).bootstrap, '-C', '-t', TOPIC, '-p', '0', '-o', 'beginning', '-c', '1', '-e', '-f', '%o\\n']);
    expect(fromNewLeader.stdout.toString().trim()).toBe('150');
    await cluster.broker(old).start();
    await waitFor(async () => (await cluster.partitionState(TOPIC, 0))?.isr.length === 3, 30_000, 'the old leader rejoined the ISR');
    // It kept its own checkpointed start across the crash.
    expect(checkpointedLogStart(old, 0)).toBe(150);
  });

  it('answers errors as Kafka does, in every version', async () => {
    const leaderId = await leaderOf(0);
    const leader = await connect(leaderId);
    const follower = await connect((await cluster.partitionState(TOPIC, 0))!.isr.find((id) => id !== leaderId)!);
    const send = (c: Connection, topic: string, offset: number, version?: number) =>
      c.send(DeleteRecords, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset }] }], timeoutMs: 5000 }, version === undefined ? {} : { version });
    for (const version of [0, 1, 2]) {
      expect((await send(leader, TOPIC, 150, version)).topics[0]!.partitions[0]).toEqual({ partitionIndex: 0, lowWatermark: 150, errorCode: 0 });
      expect((await send(leader, TOPIC, 201, version)).topics[0]!.partitions[0]).toEqual({ partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE });
    }
    expect((await send(leader, TOPIC, -7)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect((await send(follower, TOPIC, 160)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NOT_LEADER_FOR_PARTITION);
    expect((await send(leader, 'no-such-topic', 0)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const compactLeader = await connect((await cluster.kafkaZk.getPartitionState('compacted', 0))!.state.leader);
    expect((await send(compactLeader, 'compacted', 0)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    // __consumer_offsets exists since the consumer groups above.
    const offsetsLeader = await connect((await cluster.kafkaZk.getPartitionState('__consumer_offsets', 0))!.state.leader);
    expect((await send(offsetsLeader, '__consumer_offsets', 0)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    // Nothing moved on the failed attempts.
    const listed = await leader.send(ListOffsets, { replicaId: -1, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -2 }] }] });
    expect(listed.topics[0]!.partitions[0]!.offset).toBe(150);

    // DescribeLogDirs v0-v2: the broker's one log dir, absolute, with the partitions asked for.
    for (const version of [0, 1, 2]) {
      const res = await leader.send(DescribeLogDirs, { topics: [{ topic: TOPIC, partitions: [0] }] }, { version });
      expect(res.results).toHaveLength(1);
      expect(res.results[0]).toMatchObject({ errorCode: 0, logDir: resolve(cluster.broker(leaderId).logDir) });
      expect(res.results[0]!.topics).toEqual([{ name: TOPIC, partitions: [{ partitionIndex: 0, partitionSize: expect.any(Number), offsetLag: 0, isFutureKey: false }] }]);
    }
  });

  it('OffsetDelete with a kafkajs group: GROUP_SUBSCRIBED_TO_TOPIC while active; once empty, deleted for good across a coordinator restart', async () => {
    const group = 'od';
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: 5 }, (_, i) => ({ partition: 1, value: `late-${i}` })) });
    await producer.disconnect();
    // An offset of a topic the group will not subscribe to, committed while the group is empty.
    await admin.setOffsets({ groupId: group, topic: 'other', partitions: [{ partition: 0, offset: '3' }] });

    const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ autoCommitInterval: 100, eachMessage: async () => {} });
    const committed = async () =>
      Object.fromEntries(
        (await admin.fetchOffsets({ groupId: group, topics: [TOPIC, 'other'] })).flatMap((t) => t.partitions.map((p) => [`${t.topic}-${p.partition}`, p.offset])),
      );
    await waitFor(async () => {
      const c = await committed();
      return c[`${TOPIC}-0`] === '200' && c[`${TOPIC}-1`] === '205';
    }, 30_000, 'the group committed both partitions');

    const coordinatorOf = async () => {
      const any = await connect(1);
      const found = await any.send(FindCoordinator, { key: group, keyType: 0 });
      expect(found.errorCode).toBe(0);
      return found.nodeId;
    };
    const coordinatorId = await coordinatorOf();
    const coordinator = await connect(coordinatorId);
    const active = await coordinator.send(OffsetDelete, {
      groupId: group,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }, { partitionIndex: 9 }] }, { name: 'other', partitions: [{ partitionIndex: 0 }] }],
    });
    expect(active).toEqual({
      errorCode: 0,
      throttleTimeMs: 0,
      topics: [
        { name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }, { partitionIndex: 9, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
        { name: 'other', partitions: [{ partitionIndex: 0, errorCode: 0 }] },
      ],
    });
    expect(await committed()).toEqual({ [`${TOPIC}-0`]: '200', [`${TOPIC}-1`]: '205', 'other-0': '-1' });
    await consumer.disconnect();
    await waitFor(async () => (await admin.describeGroups([group])).groups[0]?.state === 'Empty', 15_000, 'the group is empty');

    // Empty now: the offsets asked for go, the others stay.
    const empty = await coordinator.send(OffsetDelete, { groupId: group, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
    expect(empty).toEqual({ errorCode: 0, throttleTimeMs: 0, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    const fetched = await coordinator.send(OffsetFetch, { groupId: group, topics: [{ name: TOPIC, partitionIndexes: [0, 1] }] });
    expect(fetched.topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([-1, 205]);
    // A group id of the same __consumer_offsets partition that never existed.
    const stranger = Array.from({ length: 100 }, (_, i) => `stranger-${i}`).find((g) => partitionForGroup(g, 3) === partitionForGroup(group, 3))!;
    const missing = await coordinator.send(OffsetDelete, { groupId: stranger, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
    expect(missing).toEqual({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, throttleTimeMs: 0, topics: [] });

    // The coordinator restarts (controlled shutdown moves its __consumer_offsets leadership away): the new
    // coordinator loads the group from the log, tombstones included.
    await cluster.broker(coordinatorId).stop();
    await cluster.broker(coordinatorId).start();
    const movedTo = await waitFor(async () => {
      const id = await coordinatorOf().catch(() => -1);
      return id >= 0 && id !== coordinatorId ? id : null;
    }, 30_000, 'a new coordinator');
    expect(movedTo).not.toBe(coordinatorId);
    const reloaded = await waitFor(async () => {
      const c = await committed().catch(() => null);
      return c && c[`${TOPIC}-1`] === '205' ? c : null;
    }, 30_000, 'offsets from the new coordinator');
    expect(reloaded).toEqual({ [`${TOPIC}-0`]: '-1', [`${TOPIC}-1`]: '205', 'other-0': '-1' });
  });
});

function run(cmd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}
