import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { CreateTopics, Fetch, type FetchResponse } from '@gregor/protocol';
import { BrokerProcess } from '../support/broker-process.js';
import { removeDir, startZooKeeper, type TestZooKeeper } from '../support/in-process-cluster.js';
import { kcat } from '../support/kcat.js';

const KiB = 1024;
const FETCH_MAX = 64 * KiB;
const REPLICA_FETCH_MAX = 96 * KiB;
const TOPIC = 'capped';
/** Partitions 0-2: 40 batches of one 8 KiB record each (~320 KiB per partition). Partition 3: one 200 KiB batch. */
const SMALL_PARTITIONS = [0, 1, 2];
const BIG_PARTITION = 3;
const SMALL_VALUE = 8 * KiB;
const BIG_VALUE = 200 * KiB;
const ASK = 50 * 1024 * KiB; // what the fetches ask for: far more than either cap

/** Sizes of the whole record batches at the start of a record set (baseOffset int64, batchLength int32, ...). */
function batchSizes(records: Buffer): { sizes: number[]; trailing: number } {
  const sizes: number[] = [];
  let pos = 0;
  while (pos + 12 <= records.length) {
    const size = 12 + records.readInt32BE(pos + 8);
    if (pos + size > records.length) break;
    sizes.push(size);
    pos += size;
  }
  return { sizes, trailing: records.length - pos };
}

/**
 * Issue 12: the broker caps what a Fetch asks for, whatever max_bytes it carries: consumers at
 * fetch.max.bytes, followers (replica id set, on the inter-broker listener) at
 * replica.fetch.response.max.bytes, except Kafka's rule that the first batch of the first partition with
 * data is returned whole even when larger. Each capped request counts in gregor_limit_hits_total.
 * A broker process (its /metrics scraped over HTTP), raw Fetch requests over its sockets.
 */
describe('fetch.max.bytes and replica.fetch.response.max.bytes (process broker)', () => {
  let zk: TestZooKeeper;
  let broker: BrokerProcess;
  let clientPort = 0;
  let internalPort = 0;
  let httpPort = 0;
  const dir = mkdtempSync(join(tmpdir(), 'gregor-fetch-limits-'));

  beforeAll(async () => {
    zk = await startZooKeeper();
    [clientPort, internalPort, httpPort] = (await freePorts(3)) as [number, number, number];
    broker = new BrokerProcess({
      brokerId: 1,
      port: clientPort,
      dir,
      zookeeperConnect: zk.connectString,
      props: {
        listeners: `CLIENT://127.0.0.1:${clientPort},INTERNAL://127.0.0.1:${internalPort}`,
        'listener.security.protocol.map': 'CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT',
        'inter.broker.listener.name': 'INTERNAL',
        'fetch.max.bytes': String(FETCH_MAX),
        'replica.fetch.response.max.bytes': String(REPLICA_FETCH_MAX),
        'http.host': '127.0.0.1',
        'http.port': String(httpPort),
        'offsets.topic.replication.factor': '1',
      },
    });
    await broker.start();
    const conn = new Connection({ host: '127.0.0.1', port: clientPort, clientId: 'setup' });
    try {
      const res = await conn.send(CreateTopics, { topics: [{ name: TOPIC, numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000 });
      expect(res.topics[0]!.errorCode).toBe(0);
    } finally {
      await conn.close();
    }
    // One record per batch (batch.num.messages=1), so batch sizes are known.
    const produce = (partition: number, value: number, count: number) =>
      kcat(['-b', `127.0.0.1:${clientPort}`, '-P', '-t', TOPIC, '-p', String(partition), '-X', 'batch.num.messages=1', '-X', 'acks=all'], `${String.fromCharCode(97 + partition).repeat(value - 1)}\n`.repeat(count), 60_000);
    for (const p of SMALL_PARTITIONS) expect((await produce(p, SMALL_VALUE, 40)).code).toBe(0);
    expect((await produce(BIG_PARTITION, BIG_VALUE, 1)).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await broker?.stop().catch(() => broker.kill());
    await zk?.stop();
    removeDir(dir);
  });

  /** gregor_limit_hits_total{limit} from GET /metrics (0 when the series is absent). */
  async function limitHits(limit: string): Promise<number> {
    const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`);
    expect(res.status).toBe(200);
    const line = (await res.text()).split('\n').find((l) => l.startsWith('gregor_limit_hits_total{') && l.includes(`limit="${limit}"`));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  async function fetchFrom(port: number, replicaId: number, partitions: number[], maxBytes = ASK): Promise<Map<number, Buffer>> {
    const conn = new Connection({ host: '127.0.0.1', port, clientId: replicaId >= 0 ? 'follower' : 'consumer' });
    let res: FetchResponse;
    try {
      res = await conn.send(Fetch, {
        replicaId,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: TOPIC, partitions: partitions.map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: ASK })) }],
        forgottenTopicsData: [],
        rackId: '',
      });
    } finally {
      await conn.close();
    }
    expect(res.errorCode).toBe(0);
    const out = new Map<number, Buffer>();
    for (const p of res.responses[0]!.partitionResponses) {
      expect(p.errorCode, `partition ${p.partition}`).toBe(0);
      out.set(p.partition, p.recordSet ?? Buffer.alloc(0));
    }
    return out;
  }

  const total = (m: Map<number, Buffer>) => [...m.values()].reduce((n, b) => n + b.length, 0);

  it('a consumer Fetch asking 50 MiB gets at most fetch.max.bytes (64 KiB) of several partitions\' ~1 MiB, and counts one limit hit', async () => {
    const before = await limitHits('fetch.max.bytes');
    const got = await fetchFrom(clientPort, -1, SMALL_PARTITIONS);
    const bytes = total(got);
    const first = batchSizes(got.get(0)!);
    console.log(`[fetch-limits] consumer fetch: ${bytes} bytes (${first.sizes.length} whole batches of ${first.sizes[0]} bytes from partition 0) for max_bytes ${ASK}, fetch.max.bytes ${FETCH_MAX}`);
    expect(bytes).toBeLessThanOrEqual(FETCH_MAX);
    // Capped, not starved: the 64 KiB are filled with the first partition's 8 KiB batches.
    expect(first.sizes.length).toBeGreaterThanOrEqual(6);
    expect(bytes).toBeGreaterThan(FETCH_MAX - 2 * first.sizes[0]!);
    expect(await limitHits('fetch.max.bytes')).toBe(before + 1);
    // A Fetch within the cap is no limit hit.
    const small = await fetchFrom(clientPort, -1, SMALL_PARTITIONS, 32 * KiB);
    expect(total(small)).toBeLessThanOrEqual(32 * KiB);
    expect(await limitHits('fetch.max.bytes')).toBe(before + 1);
  });

  it('Kafka\'s rule: the first batch of the first non-empty partition comes whole past fetch.max.bytes, and nothing else', async () => {
    const before = await limitHits('fetch.max.bytes');
    const got = await fetchFrom(clientPort, -1, [BIG_PARTITION, ...SMALL_PARTITIONS]);
    const big = batchSizes(got.get(BIG_PARTITION)!);
    console.log(`[fetch-limits] consumer fetch led by a ${big.sizes[0]}-byte batch: ${total(got)} bytes for fetch.max.bytes ${FETCH_MAX}`);
    expect(big.sizes).toHaveLength(1);
    expect(big.trailing).toBe(0);
    expect(big.sizes[0]!).toBeGreaterThan(BIG_VALUE);
    // The limit is used up by that batch: the other partitions answer empty.
    for (const p of SMALL_PARTITIONS) expect(got.get(p)!.length, `partition ${p}`).toBe(0);
    expect(await limitHits('fetch.max.bytes')).toBe(before + 1);
  });

  it('a replica Fetch (replica id 2, inter-broker listener) asking 50 MiB gets at most replica.fetch.response.max.bytes (96 KiB)', async () => {
    const consumerBefore = await limitHits('fetch.max.bytes');
    const before = await limitHits('replica.fetch.response.max.bytes');
    const got = await fetchFrom(internalPort, 2, SMALL_PARTITIONS);
    const bytes = total(got);
    console.log(`[fetch-limits] replica fetch: ${bytes} bytes for max_bytes ${ASK}, replica.fetch.response.max.bytes ${REPLICA_FETCH_MAX}`);
    expect(bytes).toBeLessThanOrEqual(REPLICA_FETCH_MAX);
    // More than a consumer may get: the follower's cap, not fetch.max.bytes, applies.
    expect(bytes).toBeGreaterThan(FETCH_MAX);
    expect(await limitHits('replica.fetch.response.max.bytes')).toBe(before + 1);
    expect(await limitHits('fetch.max.bytes')).toBe(consumerBefore);
  });
});
