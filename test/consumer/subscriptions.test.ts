import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { ConsumerRebalanceFailedError, ZookeeperConsumerConnector, type KafkaStream } from '@gregor/consumer';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Whitelist/blacklist streams, topics created after subscribing, and the roundrobin strategy on a real group. */
describe('consumer connector subscriptions (ZooKeeper + in-process broker)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;
  let producer: Producer;
  const connectors: ZookeeperConsumerConnector[] = [];

  const connect = async (props: Record<string, string>) => {
    const c = await ZookeeperConsumerConnector.create({ 'zookeeper.connect': zk.connectString, 'auto.offset.reset': 'smallest', 'rebalance.backoff.ms': '200', ...props }, { logger: silentLogger() });
    connectors.push(c);
    return c;
  };
  const drain = (streams: KafkaStream[], into: string[]) => {
    for (const s of streams) void (async () => {
      for await (const m of s) into.push(`${m.topic}:${m.value}`);
    })();
  };
  const createTopic = async (name: string, partitions: number) => {
    const [r] = await new Admin(client).createTopics([{ name, numPartitions: partitions, replicationFactor: 1 }]);
    expect(r!.errorCode).toBe(0);
    await new Admin(client).waitForLeaders([name]);
  };

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1);
    client = new KafkaClient({ brokers: broker.bootstrap, metadataMaxAgeMs: 500 });
    producer = new Producer(client, { acks: 1 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(connectors.map((c) => c.shutdown()));
    await client?.close();
    await broker?.stop();
    if (broker) removeDir(broker.logDir);
    await zk?.stop();
  });

  it('a whitelist follows topics created later; a blacklist excludes its matches; registration JSON as Kafka wrote it', async () => {
    await createTopic('logs.a', 2);
    await createTopic('metrics', 1);
    const white = await connect({ 'group.id': 'w', 'consumer.id': 'w1' });
    const black = await connect({ 'group.id': 'b', 'consumer.id': 'b1' });
    const whiteRead: string[] = [];
    const blackRead: string[] = [];
    drain(await white.createMessageStreamsByFilter({ kind: 'white_list', regex: 'logs\\..*' }, 2), whiteRead);
    drain(await black.createMessageStreamsByFilter({ kind: 'black_list', regex: 'logs\\..*' }), blackRead);
    const reg = JSON.parse((await white.zk.zk.getData('/consumers/w/ids/w_w1')).data.toString());
    expect(reg).toMatchObject({ version: 1, subscription: { 'logs\\..*': 2 }, pattern: 'white_list' });
    expect(typeof reg.timestamp).toBe('string');

    await createTopic('logs.b', 3); // created after subscribing: the topic-list watch picks it up
    await waitFor(() => white.ownedPartitions().length === 5, 20_000, 'whitelist owns logs.a and logs.b');
    for (const t of ['logs.a', 'logs.b', 'metrics']) await producer.send({ topic: t, messages: [{ value: 'x' }, { value: 'y' }] });
    await waitFor(() => whiteRead.length === 4 && blackRead.length === 2, 20_000, 'both read their topics');
    expect(whiteRead.every((v) => v.startsWith('logs.'))).toBe(true);
    expect(blackRead.sort()).toEqual(['metrics:x', 'metrics:y']);
    expect(black.ownedPartitions().map((p) => p.topic)).toEqual(['metrics']);
  }, 60_000);

  it('a static subscription to a topic that does not exist yet starts when it is created', async () => {
    const c = await connect({ 'group.id': 'late', 'consumer.id': 'l1' });
    const read: string[] = [];
    drain((await c.createMessageStreams({ later: 1 })).later!, read);
    expect(c.ownedPartitions()).toEqual([]);
    await createTopic('later', 2);
    await waitFor(() => c.ownedPartitions().length === 2, 20_000, 'owns the new topic');
    await producer.send({ topic: 'later', messages: [{ value: 'hello' }] });
    await waitFor(() => read.includes('later:hello'), 10_000, 'reads it');
  }, 60_000);

  it("roundrobin spreads a group's partitions as Kafka does", async () => {
    await createTopic('rr', 6);
    const a = await connect({ 'group.id': 'rr', 'consumer.id': 'a', 'partition.assignment.strategy': 'roundrobin' });
    const b = await connect({ 'group.id': 'rr', 'consumer.id': 'b', 'partition.assignment.strategy': 'roundrobin' });
    await a.createMessageStreams({ rr: 1 });
    await b.createMessageStreams({ rr: 1 });
    // Java: "[rr,p]".hashCode order is 0..5; the circle is rr_a-0, rr_b-0.
    await waitFor(() => a.ownedPartitions().length + b.ownedPartitions().length === 6 && b.ownedPartitions().length === 3, 20_000, 'balanced');
    expect(a.ownedPartitions().map((p) => p.partition)).toEqual([0, 2, 4]);
    expect(b.ownedPartitions().map((p) => p.partition)).toEqual([1, 3, 5]);
  }, 60_000);

  it('a partition held by a stale owner fails every attempt with ConsumerRebalanceFailedError; the member recovers once it is released', async () => {
    await createTopic('held', 2);
    const other = await ZkClient.connect({ connectString: zk.connectString, logger: silentLogger() });
    try {
      // Someone else's session still owns partition 1 (a member that has not released yet).
      expect(await new KafkaZkClient(other).claimPartition('stale', 'held', 1, 'stale_ghost-0')).toBe(true);
      const c = await connect({ 'group.id': 'stale', 'consumer.id': 's1', 'rebalance.max.retries': '2', 'rebalance.backoff.ms': '100' });
      const started = Date.now();
      await expect(c.createMessageStreams({ held: 1 })).rejects.toBeInstanceOf(ConsumerRebalanceFailedError);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(c.ownedPartitions()).toEqual([]); // a failed attempt keeps nothing
      expect(c.stats()).toMatchObject({ failedRebalances: 1, lastRebalanceError: expect.stringMatching(/can't rebalance after 2 attempts/) });
      await other.close(); // the ghost's session ends: its owner znode goes
      await waitFor(() => c.ownedPartitions().length === 2, 20_000, 'the member retries by itself and owns both partitions');
      expect(c.stats().lastRebalanceError).toBeNull();
    } finally {
      await other.close();
    }
  }, 60_000);

  it('an out-of-range committed offset resets per auto.offset.reset: smallest reads from the start, largest only new records', async () => {
    await createTopic('oor', 1);
    await producer.send({ topic: 'oor', messages: [{ value: 'old-1' }, { value: 'old-2' }] });
    const zkc = await ZkClient.connect({ connectString: zk.connectString, logger: silentLogger() });
    try {
      for (const g of ['oor-small', 'oor-large']) await new KafkaZkClient(zkc).commitConsumerOffset(g, 'oor', 0, 1_000_000);
    } finally {
      await zkc.close();
    }
    const small: string[] = [];
    const large: string[] = [];
    const s = await connect({ 'group.id': 'oor-small', 'auto.offset.reset': 'smallest' });
    const l = await connect({ 'group.id': 'oor-large', 'auto.offset.reset': 'largest' });
    drain((await s.createMessageStreams({ oor: 1 })).oor!, small);
    drain((await l.createMessageStreams({ oor: 1 })).oor!, large);
    await waitFor(() => small.length === 2, 10_000, 'smallest: reads both old records');
    await waitFor(() => l.ownedPartitions()[0]?.fetchedOffset === 2, 10_000, 'largest: positioned at the log end');
    await producer.send({ topic: 'oor', messages: [{ value: 'new' }] });
    await waitFor(() => large.length === 1 && small.length === 3, 10_000, 'both read the new record');
    expect(large).toEqual(['oor:new']);
    expect(small).toEqual(['oor:old-1', 'oor:old-2', 'oor:new']);
  }, 60_000);
});
