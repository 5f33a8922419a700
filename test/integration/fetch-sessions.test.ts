import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Admin, Connection, Consumer, KafkaClient, Producer, type ConsumedRecord } from '@gregor/client';
import { Fetch, type FetchResponse } from '@gregor/protocol';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const PARTITIONS = 60;
const TOPIC = 'sessions60';

/** The partitions a Fetch response lists, sorted. */
const answered = (r: FetchResponse) => r.responses.flatMap((t) => t.partitionResponses.map((p) => p.partition)).sort((a, b) => a - b);

/**
 * Fetch sessions (KIP-227) on one broker over real sockets: the raw protocol table, long-poll on a session,
 * gregor's own Consumer on an incremental session, and sessionless clients (kcat/librdkafka 2.0.2 and
 * kafkajs 2.2.4 send session 0, epoch -1: neither implements KIP-227) unchanged.
 */
describe('fetch sessions on one broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;
  /** Every record produced, per partition, in offset order ("key=value"). */
  const produced = new Map<number, string[]>(Array.from({ length: PARTITIONS }, (_, p) => [p, []]));

  async function produce(rounds: number, perPartition: number): Promise<void> {
    const producer = new Producer(client, { acks: 1 });
    for (let r = 0; r < rounds; r++) {
      const messages = [];
      for (let p = 0; p < PARTITIONS; p++) {
        for (let i = 0; i < perPartition; i++) {
          const n = produced.get(p)!.length;
          const key = `k${p}-${n}`;
          const value = `v${p}-${n}-${'x'.repeat((p * 7 + n) % 40)}`;
          produced.get(p)!.push(`${key}=${value}`);
          messages.push({ key, value, partition: p });
        }
      }
      await producer.send({ topic: TOPIC, messages });
    }
  }

  const stats = () => broker.server.fetchManager.stats.consumer;
  const cache = () => broker.server.fetchManager.cache;

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.replication.factor': '1', 'offsets.topic.num.partitions': '3', 'group.initial.rebalance.delay.ms': '0' });
    client = new KafkaClient({ brokers: broker.bootstrap });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    expect(r!.errorCode).toBe(0);
    await waitFor(() => broker.server.replicaManager.getPartition(TOPIC, PARTITIONS - 1)?.isLeader, 15_000, 'leadership');
    await produce(1, 3);
  });
  afterAll(async () => {
    await client?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('raw protocol: full fetch creates a session, incremental fetches add/update/forget, long-poll wakes on any session partition, errors 70/71, close, sessionless and v6 unchanged', async () => {
    const conn = new Connection({ host: '127.0.0.1', port: broker.port, requestTimeoutMs: 10_000 });
    await conn.connect();
    try {
      const fetch = (sessionId: number, sessionEpoch: number, offsets: [number, number][], opts: { forgotten?: number[]; maxWaitMs?: number; version?: number } = {}) =>
        conn.send(
          Fetch,
          {
            replicaId: -1,
            maxWaitMs: opts.maxWaitMs ?? 0,
            minBytes: 1,
            maxBytes: 10 << 20,
            isolationLevel: 0,
            sessionId,
            sessionEpoch,
            topics: offsets.length === 0 ? [] : [{ topic: TOPIC, partitions: offsets.map(([partition, fetchOffset]) => ({ partition, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1 })) }],
            forgottenTopicsData: opts.forgotten ? [{ topic: TOPIC, partitions: opts.forgotten }] : [],
            rackId: '',
          },
          { version: opts.version, timeoutMs: 20_000 },
        );
      const all = (offset: number) => Array.from({ length: PARTITIONS }, (_, p): [number, number] => [p, offset]);
      const sessionsBefore = cache().size;

      // (0, 0): full, every partition answered with its records, and a new session expecting epoch 1.
      const full = await fetch(0, 0, all(0));
      expect(full.errorCode).toBe(0);
      expect(full.sessionId).toBeGreaterThan(0);
      expect(answered(full)).toEqual(Array.from({ length: PARTITIONS }, (_, p) => p));
      for (const t of full.responses) for (const p of t.partitionResponses) expect(p.recordSet!.length).toBeGreaterThan(0);
      const id = full.sessionId!;
      expect(cache().get(id)).toMatchObject({ epoch: 1, privileged: false });
      expect(cache().get(id)!.size).toBe(PARTITIONS);

      // (id, 1): every position moved to the end → nothing to answer.
      const caughtUp = await fetch(id, 1, all(3));
      expect(caughtUp).toMatchObject({ errorCode: 0, sessionId: id, responses: [] });

      // (id, 2) lists no partition and parks; one record on partition 37 wakes it, and only 37 is answered.
      const started = Date.now();
      const parked = fetch(id, 2, [], { maxWaitMs: 8000 });
      await new Promise((r) => setTimeout(r, 300));
      let done = false;
      void parked.then(() => (done = true));
      expect(done).toBe(false);
      await new Producer(client, { acks: 1 }).send({ topic: TOPIC, messages: [{ key: 'k37-3', value: 'woke', partition: 37 }] });
      produced.get(37)!.push('k37-3=woke');
      const woke = await parked;
      expect(Date.now() - started).toBeLessThan(5000);
      expect(woke.sessionId).toBe(id);
      expect(answered(woke)).toEqual([37]);
      expect(woke.responses[0]!.partitionResponses[0]!.highWatermark).toBe(4);

      // (id, 3): 37 moves on (update), 0..9 are forgotten: 50 partitions left, nothing to answer.
      const forgot = await fetch(id, 3, [[37, 4]], { forgotten: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] });
      expect(forgot).toMatchObject({ errorCode: 0, sessionId: id, responses: [] });
      expect(cache().get(id)!.size).toBe(50);

      // Replaying epoch 3 → INVALID_FETCH_SESSION_EPOCH; an unknown id → FETCH_SESSION_ID_NOT_FOUND; no partitions either way.
      expect(await fetch(id, 3, all(0))).toMatchObject({ errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: 0, responses: [] });
      const unknown = id === 2_147_483_646 ? 1 : id + 1;
      expect(await fetch(unknown, 1, all(0))).toMatchObject({ errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] });

      // Sessionless (0, -1) and Fetch v6 (before sessions): every partition, session 0, the cache untouched.
      const legacy = await fetch(0, -1, all(0));
      expect(legacy).toMatchObject({ errorCode: 0, sessionId: 0 });
      expect(answered(legacy)).toHaveLength(PARTITIONS);
      const v6 = await fetch(0, 0, all(0), { version: 6 });
      expect(answered(v6)).toHaveLength(PARTITIONS);
      expect(cache().size).toBe(sessionsBefore + 1);

      // The session still works at epoch 4; (id, -1) closes it.
      expect((await fetch(id, 4, [])).sessionId).toBe(id);
      const closed = await fetch(id, -1, []);
      expect(closed).toMatchObject({ errorCode: 0, sessionId: 0, responses: [] });
      expect(cache().get(id)).toBeUndefined();
      expect(cache().size).toBe(sessionsBefore);
    } finally {
      await conn.close();
    }
  });

  it('every Fetch version from 7 (the first with sessions) to the highest served keeps a session: full, incremental news only, add/forget, stale epoch, close', async () => {
    const conn = new Connection({ host: '127.0.0.1', port: broker.port, requestTimeoutMs: 10_000 });
    await conn.connect();
    const versions = [...Fetch.versions.keys()].filter((v) => v >= 7);
    expect(versions).toContain(11); // Kafka 2.4.1's highest Fetch
    try {
      for (const version of versions) {
        const fetch = (sessionId: number, sessionEpoch: number, offsets: [number, number][], forgotten: number[] = []) =>
          conn.send(
            Fetch,
            {
              replicaId: -1,
              maxWaitMs: 0,
              minBytes: 1,
              maxBytes: 10 << 20,
              isolationLevel: 0,
              sessionId,
              sessionEpoch,
              topics: offsets.length === 0 ? [] : [{ topic: TOPIC, partitions: offsets.map(([partition, fetchOffset]) => ({ partition, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1 })) }],
              forgottenTopicsData: forgotten.length === 0 ? [] : [{ topic: TOPIC, partitions: forgotten }],
              rackId: '',
            },
            { version, timeoutMs: 20_000 },
          );
        const where = `Fetch v${version}`;
        const full = await fetch(0, 0, [0, 1, 2, 3, 4].map((p): [number, number] => [p, 0]));
        expect(full.errorCode, where).toBe(0);
        expect(full.sessionId, where).toBeGreaterThan(0);
        expect(answered(full), where).toEqual([0, 1, 2, 3, 4]);
        const id = full.sessionId!;
        const hw = new Map(full.responses[0]!.partitionResponses.map((p) => [p.partition, p.highWatermark]));
        expect(cache().get(id)?.size, where).toBe(5);

        // Caught up on all five: an empty answer on the same session.
        expect(await fetch(id, 1, [...hw].map(([p, o]): [number, number] => [p, o])), where).toMatchObject({ errorCode: 0, sessionId: id, responses: [] });

        // One new record on partition 2: an incremental fetch naming no partition answers only 2, with it.
        const key = `k2-v${version}`;
        await new Producer(client, { acks: 1 }).send({ topic: TOPIC, messages: [{ key, value: where, partition: 2 }] });
        produced.get(2)!.push(`${key}=${where}`);
        const news = await fetch(id, 2, []);
        expect(news.sessionId, where).toBe(id);
        expect(answered(news), where).toEqual([2]);
        const p2 = news.responses[0]!.partitionResponses[0]!;
        expect(p2.highWatermark, where).toBe(hw.get(2)! + 1);
        expect(p2.recordSet!.length, where).toBeGreaterThan(0);

        // Partition 2 moves on, 5 joins (answered: new to the session), 0 is forgotten.
        const changed = await fetch(id, 3, [[2, hw.get(2)! + 1], [5, 0]], [0]);
        expect(changed.sessionId, where).toBe(id);
        expect(answered(changed), where).toEqual([5]);
        const hw5 = changed.responses[0]!.partitionResponses[0]!.highWatermark;
        expect(cache().get(id)?.size, where).toBe(5);

        // Epoch 3 again is stale; epoch 4 moves 5 to its end (nothing to answer); (id, -1) closes the session.
        expect(await fetch(id, 3, []), where).toMatchObject({ errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: 0, responses: [] });
        expect(await fetch(id, 4, [[5, hw5]]), where).toMatchObject({ errorCode: 0, sessionId: id, responses: [] });
        expect(await fetch(id, -1, []), where).toMatchObject({ errorCode: 0, sessionId: 0, responses: [] });
        expect(cache().get(id), where).toBeUndefined();
      }
    } finally {
      await conn.close();
    }
  });

  it("gregor's Consumer reads 60 partitions byte-exact over one incremental session while records keep arriving, then closes the session", async () => {
    const before = { ...stats() };
    const consumer = new Consumer(client, { maxWaitMs: 200 });
    const got = new Map<number, string[]>();
    let count = 0;
    let producingDone = false;
    const producing = (async () => {
      for (let round = 0; round < 20; round++) {
        await produce(1, [2, 0, 1][round % 3]!); // some rounds add nothing
        await new Promise((r) => setTimeout(r, 50));
      }
      producingDone = true;
      // A last record, so the loop sees one more record after producing is over.
      produced.get(0)!.push('k0-end=end');
      await new Producer(client, { acks: 1 }).send({ topic: TOPIC, messages: [{ key: 'k0-end', value: 'end', partition: 0 }] });
    })();
    const expectedTotal = () => [...produced.values()].reduce((n, l) => n + l.length, 0);
    for await (const r of consumer.consume({ topic: TOPIC, from: 'earliest', signal: AbortSignal.timeout(90_000) }) as AsyncGenerator<ConsumedRecord>) {
      const list = got.get(r.partition) ?? [];
      expect(r.offset).toBe(list.length); // dense, in order
      list.push(`${r.key!.toString()}=${r.value!.toString()}`);
      got.set(r.partition, list);
      if (++count >= expectedTotal() && producingDone) break;
    }
    await producing;
    for (let p = 0; p < PARTITIONS; p++) expect(got.get(p) ?? []).toEqual(produced.get(p));
    const after = stats();
    const incremental = after.incremental - before.incremental;
    const full = after.full - before.full;
    expect(full).toBeGreaterThanOrEqual(1);
    expect(incremental).toBeGreaterThan(full);
    expect(after.sessionIdNotFound - before.sessionIdNotFound + after.invalidEpoch - before.invalidEpoch).toBe(0);
    // Leaving the loop closed the session.
    await waitFor(() => cache().size === 0, 5000, 'session closed');
  });

  it('kcat (librdkafka 2.0.2) and kafkajs 2.2.4 are sessionless: every record of the 60 partitions arrives byte-exact, and no session is created', async () => {
    const before = { ...stats() };
    const sessionsBefore = cache().size;
    // debug=protocol (without -q, which silences it) logs each request's version: librdkafka fetches at v11 and
    // still sends session 0, epoch -1.
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', TOPIC, '-o', 'beginning', '-e', '-X', 'debug=protocol', '-f', '%p\t%o\t%k=%s\n'], undefined, 120_000);
    expect(c.code, c.stderr.slice(-2000)).toBe(0);
    expect(c.stderr).toMatch(/Sent FetchRequest \(v11,/);
    const byPartition = new Map<number, string[]>();
    for (const line of c.stdout.toString().split('\n')) {
      if (line === '') continue;
      const [p, o, kv] = line.split('\t') as [string, string, string];
      const list = byPartition.get(Number(p)) ?? [];
      expect(Number(o)).toBe(list.length);
      list.push(kv);
      byPartition.set(Number(p), list);
    }
    for (let p = 0; p < PARTITIONS; p++) expect(byPartition.get(p) ?? []).toEqual(produced.get(p));
    const afterKcat = { ...stats() };
    expect(afterKcat.sessionless).toBeGreaterThan(before.sessionless);
    expect(afterKcat.full).toBe(before.full);
    expect(afterKcat.incremental).toBe(before.incremental);

    const kafka = new Kafka({ clientId: 'sessions-it', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: 'sessions-kafkajs', maxWaitTimeInMs: 200 });
    const fetchVersions = new Set<number>();
    consumer.on(consumer.events.REQUEST, (e) => {
      if (e.payload.apiName === 'Fetch') fetchVersions.add(e.payload.apiVersion);
    });
    await consumer.connect();
    const got = new Map<number, string[]>();
    let count = 0;
    const total = [...produced.values()].reduce((n, l) => n + l.length, 0);
    try {
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`kafkajs read ${count} of ${total}`)), 60_000);
        void consumer
          .run({
            eachMessage: async ({ partition, message }) => {
              const list = got.get(partition) ?? [];
              list.push(`${message.key!.toString()}=${message.value!.toString()}`);
              got.set(partition, list);
              if (++count === total) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    for (let p = 0; p < PARTITIONS; p++) expect(got.get(p) ?? []).toEqual(produced.get(p));
    expect([...fetchVersions]).toEqual([11]); // kafkajs's highest Fetch, sessionless too
    const after = stats();
    expect(after.sessionless).toBeGreaterThan(afterKcat.sessionless);
    expect(after.full).toBe(before.full);
    expect(after.incremental).toBe(before.incremental);
    expect(cache().size).toBe(sessionsBefore);
  });
});
