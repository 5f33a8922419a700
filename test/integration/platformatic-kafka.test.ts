import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin as PltAdmin, Consumer as PltConsumer, Producer as PltProducer, ProduceAcks, UnsupportedApiError, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { Admin, KafkaClient, Reader } from '@gregor/client';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * @platformatic/kafka 1.35 (the newest release that runs on Node 20) speaks only flexible versions, and the
 * lowest it implements of several APIs are newer than Kafka 2.4: Fetch v12+, FindCoordinator v4+,
 * OffsetFetch v8+, ListGroups v4+, CreateTopics v7+, DeleteTopics v6+ (Kafka 2.8-3.0; its README says 3.5+). Against a 2.4-level
 * broker its consumer and those admin calls therefore stop with UnsupportedApiError before sending anything.
 * Every group call of its Admin looks the coordinator up with FindCoordinator v4+ first. What it can do:
 * ApiVersions v3, Metadata v9 (list topics, metadata) and Produce v8; what it produced is read back here
 * through a consumer group by gregor's Reader.
 */
describe('@platformatic/kafka 1.35 against a gregor broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;
  const closers: (() => Promise<unknown>)[] = [];
  /** The API versions the broker served after setup (only @platformatic/kafka talks until gregor's Reader starts). */
  const seen = new Set<string>();
  const bootstrapBrokers = () => [broker.bootstrap];
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.replication.factor': '1', 'offsets.topic.num.partitions': '1', 'group.initial.rebalance.delay.ms': '0' });
    client = new KafkaClient({ brokers: broker.bootstrap });
    const created = await new Admin(client).createTopics([{ name: 'plt', numPartitions: 3, replicationFactor: 1 }]);
    expect(created[0]!.errorCode).toBe(0);
    const fromController = new Set(['LeaderAndIsr', 'UpdateMetadata', 'StopReplica']);
    broker.server.apis.requestObservers.add((e) => {
      if (!fromController.has(e.api)) seen.add(`${e.api} v${e.apiVersion}`);
    });
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await client?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('lists topics and reads their metadata (ApiVersions v3, Metadata v9)', async () => {
    const admin = new PltAdmin({ clientId: 'plt-admin', bootstrapBrokers: bootstrapBrokers(), retries: 2 });
    closers.push(() => admin.close());
    expect(await admin.listTopics()).toEqual(['plt']);
    const metadata = await admin.metadata({ topics: ['plt'] });
    const topic = metadata.topics.get('plt')!;
    expect(topic.partitionsCount).toBe(3);
    expect(topic.partitions.map((p) => p.leader)).toEqual([1, 1, 1]);
    expect([...metadata.brokers.values()].map((b) => b.port)).toEqual([broker.port]);
  });

  it('produces (Produce v8, acks=all and acks=1) what gregor reads back in a consumer group', async () => {
    const producer = new PltProducer({ clientId: 'plt-producer', bootstrapBrokers: bootstrapBrokers(), serializers: stringSerializers, retries: 2 });
    closers.push(() => producer.close());
    const values = Array.from({ length: 30 }, (_, i) => `plt-${i}`);
    const first = await producer.send({ messages: values.slice(0, 15).map((value, i) => ({ topic: 'plt', key: `k${i}`, value, partition: i % 3 })), acks: ProduceAcks.ALL });
    expect(first.offsets?.map((o) => o.partition).sort()).toEqual([0, 1, 2]);
    await producer.send({ messages: values.slice(15).map((value, i) => ({ topic: 'plt', key: `k${i}`, value, partition: i % 3, headers: { h: 'v' } })), acks: ProduceAcks.LEADER });
    expect([...seen].sort()).toEqual(['ApiVersions v3', 'Metadata v9', 'Produce v8']);

    const reader = new Reader({ brokers: broker.bootstrap, groupId: 'plt-group', topic: 'plt', sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500 });
    closers.push(() => reader.close());
    const read: string[] = [];
    const abort = AbortSignal.timeout(30_000);
    while (read.length < values.length) {
      const m = await reader.readMessage(abort);
      read.push(m.value!.toString());
      if (read.length === 16) expect(m.headers.map((h) => [h.key, h.value?.toString()])).toEqual([['h', 'v']]);
    }
    expect(read.sort()).toEqual([...values].sort());
  });

  it('stops with UnsupportedApiError where it needs versions newer than Kafka 2.4 (consumer group, group admin, CreateTopics)', async () => {
    const consumer = new PltConsumer({
      groupId: 'plt-consumer',
      clientId: 'plt-consumer',
      bootstrapBrokers: bootstrapBrokers(),
      deserializers: stringDeserializers,
      retries: 0,
    });
    closers.push(async () => consumer.close(true));
    const joined = await consumer.consume({ topics: ['plt'], mode: 'earliest', sessionTimeout: 10_000, heartbeatInterval: 500 }).catch((e: unknown) => e);
    expect(joined).toBeInstanceOf(Error);
    expect(String((joined as Error & { errors?: Error[] }).errors?.map((e) => e.message) ?? (joined as Error).message)).toMatch(/FindCoordinator/);
    const admin = new PltAdmin({ clientId: 'plt-admin-3', bootstrapBrokers: bootstrapBrokers(), retries: 0 });
    closers.push(() => admin.close());
    const calls = [
      () => admin.listGroups(), // ListGroups v4+
      () => admin.describeGroups({ groups: ['plt-group'] }), // FindCoordinator v4+ first
      () => admin.deleteGroups({ groups: ['plt-group'] }), // FindCoordinator v4+ first
      () => admin.createTopics({ topics: ['plt-new'], partitions: 1, replicas: 1 }), // CreateTopics v7+
      () => admin.deleteTopics({ topics: ['plt'] }), // DeleteTopics v6+
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      const all = [error as Error, ...((error as { errors?: Error[] }).errors ?? [])];
      expect(all.some((e) => e instanceof UnsupportedApiError)).toBe(true);
    }
  });
});
