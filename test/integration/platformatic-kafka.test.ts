import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Admin as PltAdmin,
  ConfigResourceTypes,
  ConfigSources,
  Consumer as PltConsumer,
  IncrementalAlterConfigOperationTypes,
  Producer as PltProducer,
  ProduceAcks,
  UnsupportedApiError,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { Admin, KafkaClient, Reader } from '@gregor/client';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * @platformatic/kafka 1.35 (the newest release that runs on Node 20) speaks only flexible versions, and the
 * lowest it implements of several APIs are newer than Kafka 2.4: Fetch v12+, FindCoordinator v4+,
 * OffsetFetch v8+, ListGroups v4+, CreateTopics v7+, DeleteTopics v6+ (Kafka 2.8-3.0; its README says 3.5+). Against a 2.4-level
 * broker its consumer and those admin calls therefore stop with UnsupportedApiError before sending anything.
 * Every group call of its Admin looks the coordinator up with FindCoordinator v4+ first. What it can do:
 * ApiVersions v3, Metadata v9 (list topics, metadata) and Produce v8; what it produced is read back here
 * through a consumer group by gregor's Reader. Its config admin (DescribeConfigs v4, AlterConfigs v2,
 * IncrementalAlterConfigs v1, all flexible) works: what it alters is in /config/topics/T and described back.
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

  it('describes and alters topic and broker configs (DescribeConfigs v4, AlterConfigs v2, IncrementalAlterConfigs v1)', async () => {
    const versions = new Set<string>();
    const observe = (e: { api: string; apiVersion: number }) => void versions.add(`${e.api} v${e.apiVersion}`);
    broker.server.apis.requestObservers.add(observe);
    const admin = new PltAdmin({ clientId: 'plt-configs', bootstrapBrokers: bootstrapBrokers(), retries: 2 });
    closers.push(() => admin.close());
    const TOPIC = ConfigResourceTypes.TOPIC;
    const describeTopic = async (keys: string[]) => {
      const [d] = await admin.describeConfigs({ resources: [{ resourceType: TOPIC, resourceName: 'plt', configurationKeys: keys }], includeSynonyms: true, includeDocumentation: true });
      expect(d).toMatchObject({ resourceType: TOPIC, resourceName: 'plt' });
      return new Map(d!.configs.map((c) => [c.name, c]));
    };
    try {
      // Before: the broker's default, described as such with its documentation.
      const before = (await describeTopic(['retention.ms']).then((m) => m.get('retention.ms')))!;
      expect(before).toMatchObject({ value: '604800000', configSource: ConfigSources.DEFAULT_CONFIG, readOnly: false, isSensitive: false });
      expect(before.documentation).toMatch(/\S/);

      // AlterConfigs replaces the topic's overrides: /config/topics/plt holds exactly them.
      await admin.alterConfigs({ resources: [{ resourceType: TOPIC, resourceName: 'plt', configs: [{ name: 'retention.ms', value: '3600000' }, { name: 'max.message.bytes', value: '2000000' }] }] });
      expect(await broker.server.zk.getTopicConfig('plt')).toEqual({ 'retention.ms': '3600000', 'max.message.bytes': '2000000' });
      const altered = await describeTopic(['retention.ms', 'max.message.bytes', 'cleanup.policy']);
      expect(altered.get('retention.ms')).toMatchObject({ value: '3600000', configSource: ConfigSources.TOPIC_CONFIG }); // DYNAMIC_TOPIC_CONFIG
      expect(altered.get('retention.ms')!.synonyms[0]).toEqual({ name: 'retention.ms', value: '3600000', source: ConfigSources.TOPIC_CONFIG });
      expect(altered.get('max.message.bytes')).toMatchObject({ value: '2000000', configSource: ConfigSources.TOPIC_CONFIG });
      expect(altered.get('cleanup.policy')).toMatchObject({ value: 'delete', configSource: ConfigSources.DEFAULT_CONFIG });
      // The broker applies the override (the change notification reaches the topic config cache).
      await waitFor(() => broker.server.topicConfigs.get('plt').log.retentionMs === 3_600_000 && broker.server.topicConfigs.get('plt').maxMessageBytes === 2_000_000, 10_000, 'the overrides applied');

      // IncrementalAlterConfigs: SET one key, DELETE another; the rest stays.
      await admin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: TOPIC,
            resourceName: 'plt',
            configs: [
              { name: 'cleanup.policy', configOperation: IncrementalAlterConfigOperationTypes.SET, value: 'compact' },
              { name: 'max.message.bytes', configOperation: IncrementalAlterConfigOperationTypes.DELETE },
            ],
          },
        ],
      });
      expect(await broker.server.zk.getTopicConfig('plt')).toEqual({ 'retention.ms': '3600000', 'cleanup.policy': 'compact' });
      const incremental = await describeTopic(['cleanup.policy', 'max.message.bytes']);
      expect(incremental.get('cleanup.policy')).toMatchObject({ value: 'compact', configSource: ConfigSources.TOPIC_CONFIG });
      expect(incremental.get('max.message.bytes')!.configSource).toBe(ConfigSources.DEFAULT_CONFIG);

      // A bad value is refused with a clear error and changes nothing.
      const bad = await admin.alterConfigs({ resources: [{ resourceType: TOPIC, resourceName: 'plt', configs: [{ name: 'retention.ms', value: 'soon' }] }] }).catch((e: unknown) => e);
      // Kafka's AdminManager answers a ConfigException with INVALID_REQUEST (42) and the reason.
      const refused = (bad as { errors?: { response?: { responses?: { errorCode: number; errorMessage: string | null }[] } }[] }).errors?.[0]?.response?.responses?.[0];
      expect(refused?.errorCode).toBe(42);
      expect(refused?.errorMessage).toMatch(/retention\.ms/);
      expect(await broker.server.zk.getTopicConfig('plt')).toEqual({ 'retention.ms': '3600000', 'cleanup.policy': 'compact' });

      // The broker resource: static settings with their source.
      const [b] = await admin.describeConfigs({ resources: [{ resourceType: ConfigResourceTypes.BROKER, resourceName: '1', configurationKeys: ['offsets.topic.num.partitions', 'num.io.threads', 'inter.broker.protocol.version'] }] });
      const brokerConfigs = new Map(b!.configs.map((c) => [c.name, c]));
      expect(brokerConfigs.get('offsets.topic.num.partitions')).toMatchObject({ value: '1', configSource: ConfigSources.STATIC_BROKER_CONFIG, readOnly: true });
      expect(brokerConfigs.get('num.io.threads')).toMatchObject({ configSource: ConfigSources.DEFAULT_CONFIG });
      // Kafka 2.4's default, which tools read to choose between AlterConfigs and IncrementalAlterConfigs.
      expect(brokerConfigs.get('inter.broker.protocol.version')).toMatchObject({ value: '2.4-IV1', configSource: ConfigSources.DEFAULT_CONFIG });
    } finally {
      broker.server.apis.requestObservers.delete(observe);
    }
    expect([...versions].filter((v) => v.includes('Configs')).sort()).toEqual(['AlterConfigs v2', 'DescribeConfigs v4', 'IncrementalAlterConfigs v1']);
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
