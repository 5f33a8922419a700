import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigResourceTypes, ConfigSource, Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '@gregor/client';
import { AlterConfigOpType, AlterConfigs, DescribeConfigs, IncrementalAlterConfigs } from '@gregor/protocol';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const run = promisify(execFile);
const PYTHON_SCRIPT = join(import.meta.dirname, 'fixtures/confluent_configs.py');

/** The config admin APIs with real clients against one gregor broker, and each effect seen in behaviour. */
describe('config admin APIs (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  let conn: Connection;

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'log.retention.check.interval.ms': '200' });
    kafka = new Kafka({ clientId: 'configs-it', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ retry: { retries: 0 } });
    await producer.connect();
    conn = new Connection({ host: '127.0.0.1', port: broker.port, clientId: 'configs-raw' });
  });
  afterAll(async () => {
    await conn?.close();
    await producer?.disconnect();
    await admin?.disconnect();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  const send = (topic: string, bytes: number) => producer.send({ topic, acks: -1, messages: [{ value: Buffer.alloc(bytes, 0x61) }] });
  const codeOf = (p: Promise<unknown>) => p.then(() => 'OK', (e: { type?: string }) => e.type ?? String(e));

  it('kafkajs 2.2.4: describeConfigs (topic, broker, synonyms) and alterConfigs that change produce behaviour', async () => {
    await admin.createTopics({ topics: [{ topic: 'limits', numPartitions: 1 }, { topic: 'follows-broker', numPartitions: 1 }], waitForLeaders: true });

    const topic = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'limits' }], includeSynonyms: true });
    const t = new Map(topic.resources[0]!.configEntries.map((e) => [e.configName, e]));
    expect(topic.resources[0]!.errorCode).toBe(0);
    expect(t.size).toBeGreaterThan(20);
    expect(t.get('retention.ms')).toMatchObject({ configValue: '604800000', configSource: ConfigSource.DEFAULT_CONFIG, readOnly: false, configSynonyms: [] });
    expect(t.get('max.message.bytes')).toMatchObject({
      configValue: '1048588',
      configSource: ConfigSource.DEFAULT_CONFIG,
      configSynonyms: [{ configName: 'message.max.bytes', configValue: '1048588', configSource: ConfigSource.DEFAULT_CONFIG }],
    });

    const brokerCfg = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: ['broker.id', 'message.max.bytes', 'listeners'] }], includeSynonyms: true });
    const b = new Map(brokerCfg.resources[0]!.configEntries.map((e) => [e.configName, e]));
    expect([...b.keys()].sort()).toEqual(['broker.id', 'listeners', 'message.max.bytes']);
    expect(b.get('broker.id')).toMatchObject({ configValue: '1', readOnly: true, configSource: ConfigSource.STATIC_BROKER_CONFIG });
    expect(b.get('message.max.bytes')).toMatchObject({ configValue: '1048588', readOnly: false, configSource: ConfigSource.DEFAULT_CONFIG });

    // A 3000-byte record passes; after max.message.bytes=2000 on the topic it is refused, a small one still passes.
    expect(await codeOf(send('limits', 3000))).toBe('OK');
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'limits', configEntries: [{ name: 'max.message.bytes', value: '2000' }] }] });
    expect(await codeOf(send('limits', 3000))).toBe('MESSAGE_TOO_LARGE');
    expect(await codeOf(send('limits', 500))).toBe('OK');
    const altered = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'limits', configNames: ['max.message.bytes'] }], includeSynonyms: true });
    expect(altered.resources[0]!.configEntries[0]).toMatchObject({
      configValue: '2000',
      configSource: ConfigSource.TOPIC_CONFIG,
      configSynonyms: [
        { configName: 'max.message.bytes', configValue: '2000', configSource: ConfigSource.TOPIC_CONFIG },
        { configName: 'message.max.bytes', configValue: '1048588', configSource: ConfigSource.DEFAULT_CONFIG },
      ],
    });

    // validate_only writes nothing.
    await admin.alterConfigs({ validateOnly: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'limits', configEntries: [{ name: 'max.message.bytes', value: '100' }] }] });
    expect(await broker.server.zk.getTopicConfig('limits')).toEqual({ 'max.message.bytes': '2000' });

    // A per-broker dynamic message.max.bytes reaches a topic without an override at once.
    expect(await codeOf(send('follows-broker', 3000))).toBe('OK');
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'message.max.bytes', value: '2500' }] }] });
    expect(await codeOf(send('follows-broker', 3000))).toBe('MESSAGE_TOO_LARGE');
    expect(await codeOf(send('limits', 1500))).toBe('OK'); // the topic override still wins
    const b2 = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: ['message.max.bytes'] }], includeSynonyms: true });
    expect(b2.resources[0]!.configEntries[0]).toMatchObject({
      configValue: '2500',
      configSource: ConfigSource.DYNAMIC_BROKER_CONFIG,
      configSynonyms: [
        { configName: 'message.max.bytes', configValue: '2500', configSource: ConfigSource.DYNAMIC_BROKER_CONFIG },
        { configName: 'message.max.bytes', configValue: '1048588', configSource: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    expect(await broker.server.zk.getBrokerConfig(1)).toEqual({ 'message.max.bytes': '2500' });

    // Refusals come back with Kafka's codes.
    await expect(
      admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'limits', configEntries: [{ name: 'no.such.config', value: '1' }] }] }),
    ).rejects.toMatchObject({ type: 'INVALID_CONFIG' });
    await expect(
      admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'num.partitions', value: '3' }] }] }),
    ).rejects.toMatchObject({ type: 'INVALID_REQUEST' });
    await expect(admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'no-such-topic' }], includeSynonyms: false })).rejects.toMatchObject({
      type: 'UNKNOWN_TOPIC_OR_PARTITION',
    });
    // Clean up the broker-level change for the next tests.
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [] }] });
    expect(broker.server.config.messageMaxBytes).toBe(1048588);
  });

  it('retention.ms altered on a topic deletes its old segments at run time', async () => {
    await admin.createTopics({ topics: [{ topic: 'short-lived', numPartitions: 1, configEntries: [{ name: 'segment.bytes', value: '1024' }] }], waitForLeaders: true });
    for (let i = 0; i < 10; i++) await send('short-lived', 300);
    const log = broker.server.logManager.getLog('short-lived', 0)!;
    expect(log.logStartOffset).toBe(0);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'short-lived', configEntries: [{ name: 'segment.bytes', value: '1024' }, { name: 'retention.ms', value: '1' }] }],
    });
    expect(log.config.retentionMs).toBe(1);
    // the broker's retention check (every 200 ms here) now deletes every segment but the active one
    await waitFor(() => log.logStartOffset > 0, 10_000, 'old segments deleted');
    expect(log.segmentBaseOffsets()).toHaveLength(1);
  });

  it('every version over the wire, flexible ones included: DescribeConfigs v0-4, AlterConfigs v0-2, IncrementalAlterConfigs v0-1', async () => {
    await admin.createTopics({ topics: [{ topic: 'wire', numPartitions: 1 }], waitForLeaders: true });
    for (const version of [0, 1, 2, 3, 4]) {
      const res = await conn.send(
        DescribeConfigs,
        { resources: [{ resourceType: 2, resourceName: 'wire', configurationKeys: ['cleanup.policy'] }, { resourceType: 4, resourceName: '', configurationKeys: null }], includeSynonyms: true, includeDocumentation: true },
        { version },
      );
      expect(res.results.map((r) => [r.errorCode, r.resourceName])).toEqual([
        [0, 'wire'],
        [0, ''],
      ]);
      const policy = res.results[0]!.configs[0]!;
      expect(policy).toMatchObject({ name: 'cleanup.policy', value: 'delete', configSource: ConfigSource.DEFAULT_CONFIG });
      if (version >= 1) expect(policy.synonyms).toEqual([{ name: 'log.cleanup.policy', value: 'delete', source: ConfigSource.DEFAULT_CONFIG }]);
      if (version >= 3) expect([policy.configType, policy.documentation]).toEqual([7, 'delete or compact']);
      else expect([policy.configType, policy.documentation]).toEqual([0, null]);
    }
    for (const version of [0, 1, 2]) {
      const res = await conn.send(AlterConfigs, { resources: [{ resourceType: 2, resourceName: 'wire', configs: [{ name: 'retention.ms', value: String(1000 + version) }] }], validateOnly: false }, { version });
      expect(res.responses).toEqual([{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 'wire' }]);
      expect(await broker.server.zk.getTopicConfig('wire')).toEqual({ 'retention.ms': String(1000 + version) });
    }
    for (const version of [0, 1]) {
      const res = await conn.send(
        IncrementalAlterConfigs,
        {
          resources: [
            {
              resourceType: 2,
              resourceName: 'wire',
              configs: [
                { name: 'cleanup.policy', configOperation: AlterConfigOpType.APPEND, value: 'compact' },
                { name: 'retention.ms', configOperation: AlterConfigOpType.DELETE, value: null },
              ],
            },
          ],
          validateOnly: false,
        },
        { version },
      );
      expect(res.responses[0]).toMatchObject({ errorCode: 0 });
      expect(await broker.server.zk.getTopicConfig('wire')).toEqual({ 'cleanup.policy': version === 0 ? 'delete,compact' : 'delete,compact,compact' });
    }
    await waitFor(() => broker.server.topicConfigs.overrides('wire')['cleanup.policy'] === 'delete,compact,compact', 5000, 'applied on the host');
  });

  it('refuses what Kafka refuses, per resource, naming the setting', async () => {
    const res = await conn.send(
      AlterConfigs,
      {
        resources: [
          { resourceType: 4, resourceName: '', configs: [{ name: 'listeners', value: 'PLAINTEXT://:1' }] },
          { resourceType: 4, resourceName: '1', configs: [{ name: 'log.retention.hours', value: '1' }] },
          { resourceType: 4, resourceName: '2', configs: [] },
          { resourceType: 4, resourceName: 'x', configs: [] },
          { resourceType: 2, resourceName: 'wire', configs: [{ name: 'retention.ms', value: 'soon' }] },
          { resourceType: 2, resourceName: 'absent', configs: [] },
          { resourceType: 2, resourceName: 'bad/name', configs: [] },
        ],
        validateOnly: false,
      },
      { version: 2 },
    );
    expect(res.responses.map((r) => [r.resourceName, r.errorCode, r.errorMessage])).toEqual([
      ['', 42, 'Cannot update these configs at default cluster level, broker id must be specified: listeners'],
      ['1', 42, expect.stringContaining('Cannot update these configs dynamically: log.retention.hours')],
      ['2', 42, 'Unexpected broker id, expected 1 or empty string, but received 2'],
      ['x', 42, 'Broker id must be an integer, but it is: x'],
      ['wire', 42, expect.stringContaining('retention.ms')],
      ['absent', 3, "Topic 'absent' does not exist."],
      ['bad/name', 17, expect.any(String)],
    ]);
    const logger = await conn.send(DescribeConfigs, { resources: [{ resourceType: 8, resourceName: '1', configurationKeys: null }], includeSynonyms: false }, { version: 4 });
    expect(logger.results[0]).toMatchObject({ errorCode: 42, errorMessage: expect.stringContaining('BROKER_LOGGER'), configs: [] });
    const dup = await conn.send(
      IncrementalAlterConfigs,
      { resources: [{ resourceType: 4, resourceName: '1', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '1' }, { name: 'log.retention.ms', configOperation: 1, value: null }] }], validateOnly: false },
      { version: 1 },
    );
    expect(dup.responses[0]).toMatchObject({ errorCode: 42, errorMessage: 'Error due to duplicate config keys : log.retention.ms' });
    expect(await broker.server.zk.getBrokerConfig('<default>')).toEqual({});
  });

  it('python3-confluent-kafka (librdkafka 2.0.2) AdminClient: describe_configs and alter_configs', async () => {
    await admin.createTopics({ topics: [{ topic: 'from-python', numPartitions: 1 }], waitForLeaders: true });
    const { stdout } = await run('/usr/bin/python3', [PYTHON_SCRIPT, broker.bootstrap, 'from-python', '1'], { timeout: 60_000 });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out.topic_count).toBeGreaterThan(20);
    expect(out.topic_before).toMatchObject({
      'retention.ms': { value: '604800000', source: 5, read_only: false, default: true },
      'cleanup.policy': { value: 'delete', source: 5, synonyms: [['log.cleanup.policy', 'delete', 5]] },
    });
    expect(out.broker_count).toBeGreaterThan(50);
    expect(out.broker_before).toMatchObject({
      'broker.id': { value: '1', source: 4, read_only: true },
      'log.retention.ms': { value: null, source: 5, read_only: false },
    });
    expect(out.alter_topic).toBeNull();
    expect(out.topic_after).toMatchObject({
      'retention.ms': { value: '3600000', source: 1, synonyms: [['retention.ms', '3600000', 1]] },
      'max.message.bytes': { value: '4000', source: 1 },
      'cleanup.policy': { value: 'delete', source: 5 },
    });
    expect(out.alter_topic_bad).toMatchObject({ name: 'INVALID_REQUEST', message: expect.stringContaining('retention.ms') });
    expect(out.alter_topic_unknown).toMatchObject({ name: 'INVALID_CONFIG', message: 'Unknown topic config name: no.such.config' });
    expect(out.alter_broker).toBeNull();
    expect(out.alter_broker_read_only).toMatchObject({ name: 'INVALID_REQUEST', message: expect.stringContaining('num.partitions') });
    expect(out.broker_after).toMatchObject({ 'log.retention.ms': { value: '7200000', source: 2 }, 'num.partitions': { value: '1', read_only: true } });
    expect(out.topic_final).toMatchObject({ 'retention.ms': { value: '3600000', source: 1 }, 'segment.bytes': { value: '1073741824', source: 5 } });
    // the broker-level retention reached the logs of topics without an override
    expect(broker.server.logManager.getLog('wire', 0)!.config.retentionMs).toBe(7_200_000);
    expect(broker.server.logManager.getLog('from-python', 0)!.config.retentionMs).toBe(3_600_000);
  });
});
