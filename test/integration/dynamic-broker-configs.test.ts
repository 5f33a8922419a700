import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '@gregor/client';
import { silentLogger } from '@gregor/common';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { AlterConfigOpType, AlterConfigs, ConfigResourceType, ConfigSource, DescribeConfigs, IncrementalAlterConfigs } from '@gregor/protocol';
import { ProcessCluster } from '../support/process-cluster.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * Dynamic broker configs across broker processes: set at <default> through one broker and for one
 * broker through itself, they reach the other process at run time through /config/changes, change
 * what it accepts, and are read back from ZooKeeper when it restarts.
 */
describe('dynamic broker configs (two broker processes)', () => {
  let cluster: ProcessCluster;
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  const conns: Connection[] = [];

  beforeAll(async () => {
    // A short leader imbalance check brings leadership back to broker 2 after its restart.
    cluster = await ProcessCluster.start({ brokers: 2, zookeepers: 1, brokerProps: { 'leader.imbalance.check.interval.seconds': '1' } });
    kafka = new Kafka({ clientId: 'dyn-it', brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ retry: { retries: 0 } });
    await producer.connect();
  }, 120_000);
  afterAll(async () => {
    for (const c of conns) await c.close();
    await producer?.disconnect().catch(() => {});
    await admin?.disconnect().catch(() => {});
    await cluster?.stop();
  });

  const connect = (id: number) => {
    const c = new Connection({ host: '127.0.0.1', port: cluster.broker(id).opts.port, clientId: `dyn-${id}` });
    conns.push(c);
    return c;
  };
  /** The Kafka error name a produce ends with ('OK' if acknowledged). */
  const produce = (topic: string, bytes: number, acks: number) =>
    producer.send({ topic, acks, messages: [{ value: Buffer.alloc(bytes, 0x62) }] }).then(
      () => 'OK',
      (e: { type?: string; originalError?: { type?: string }; cause?: { type?: string } }) => e.type === 'KAFKA_JS_ERROR' || !e.type ? (e.originalError?.type ?? e.cause?.type ?? String(e)) : e.type,
    );
  const brokerConfig = async (conn: Connection, name: string, keys: string[]) => {
    const res = await conn.send(DescribeConfigs, { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: name, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false }, { version: 4 });
    expect(res.results[0]!.errorCode, res.results[0]!.errorMessage ?? '').toBe(0);
    return new Map(res.results[0]!.configs.map((c) => [c.name, c]));
  };

  it('<default> and per-broker settings reach the other broker at run time and survive its restart', async () => {
    await admin.createTopics({
      topics: [
        { topic: 'led-by-2', replicaAssignment: [{ partition: 0, replicas: [2, 1] }] },
        { topic: 'led-by-1', replicaAssignment: [{ partition: 0, replicas: [1, 2] }] },
      ],
      waitForLeaders: true,
    });
    await waitFor(async () => (await produce('led-by-2', 8000, -1)) === 'OK' && (await produce('led-by-1', 8000, -1)) === 'OK', 20_000, 'both topics writable with ISR 2');
    const b1 = connect(1);
    const b2 = connect(2);

    // message.max.bytes=5000 for every broker, written through broker 1 (AlterConfigs v2, flexible).
    const set = await b1.send(AlterConfigs, { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: '', configs: [{ name: 'message.max.bytes', value: '5000' }] }], validateOnly: false }, { version: 2 });
    expect(set.responses[0]).toMatchObject({ errorCode: 0 });
    expect(await cluster.kafkaZk.getBrokerConfig('<default>')).toEqual({ 'message.max.bytes': '5000' });
    await waitFor(async () => (await produce('led-by-2', 8000, 1)) === 'MESSAGE_TOO_LARGE', 15_000, 'broker 2 applies the <default> change');
    expect(await produce('led-by-1', 8000, 1)).toBe('MESSAGE_TOO_LARGE');
    expect(await produce('led-by-2', 1000, -1)).toBe('OK');
    const seenBy2 = await brokerConfig(b2, '2', ['message.max.bytes']);
    expect(seenBy2.get('message.max.bytes')).toMatchObject({
      value: '5000',
      configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
      synonyms: [
        { name: 'message.max.bytes', value: '5000', source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG },
        { name: 'message.max.bytes', value: '1048588', source: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    const defaults = await b2.send(DescribeConfigs, { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: '', configurationKeys: null }], includeSynonyms: true }, { version: 1 });
    expect(defaults.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([['message.max.bytes', '5000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]]);

    // min.insync.replicas=3 for broker 2 only (IncrementalAlterConfigs v1, flexible): acks=all to its partition
    // now fails (ISR 2 < 3) while broker 1 still takes acks=all writes.
    const perBroker = await b2.send(
      IncrementalAlterConfigs,
      { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: '2', configs: [{ name: 'min.insync.replicas', configOperation: AlterConfigOpType.SET, value: '3' }] }], validateOnly: false },
      { version: 1 },
    );
    expect(perBroker.responses[0]).toMatchObject({ errorCode: 0 });
    expect(await cluster.kafkaZk.getBrokerConfig(2)).toEqual({ 'min.insync.replicas': '3' });
    expect(await produce('led-by-2', 100, -1)).toBe('NOT_ENOUGH_REPLICAS');
    expect(await produce('led-by-1', 100, -1)).toBe('OK');
    expect((await brokerConfig(b1, '1', ['min.insync.replicas'])).get('min.insync.replicas')).toMatchObject({ value: '1', configSource: ConfigSource.DEFAULT_CONFIG });
    // a broker only takes its own id (kafka-configs sends per-broker changes to that broker)
    const wrong = await b1.send(AlterConfigs, { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: '2', configs: [] }], validateOnly: false }, { version: 1 });
    expect(wrong.responses[0]).toMatchObject({ errorCode: 42 });

    // Restart broker 2: it reads both entities from ZooKeeper before serving.
    await cluster.broker(2).stop();
    await cluster.broker(2).start();
    const again = connect(2);
    const afterRestart = await brokerConfig(again, '2', ['message.max.bytes', 'min.insync.replicas']);
    expect(afterRestart.get('message.max.bytes')).toMatchObject({ value: '5000', configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
    expect(afterRestart.get('min.insync.replicas')).toMatchObject({ value: '3', configSource: ConfigSource.DYNAMIC_BROKER_CONFIG, readOnly: false });
    await waitFor(async () => {
      const md = await admin.fetchTopicMetadata({ topics: ['led-by-2'] });
      const p = md.topics[0]!.partitions[0]!;
      return p.leader === 2 && p.isr.length === 2;
    }, 30_000, 'broker 2 leads led-by-2 again with a full ISR');
    await waitFor(async () => (await produce('led-by-2', 100, -1)) === 'NOT_ENOUGH_REPLICAS', 10_000, 'min.insync.replicas=3 applies after the restart');
    expect(await produce('led-by-2', 8000, 1)).toBe('MESSAGE_TOO_LARGE');

    // Removing them restores the static behaviour on both brokers.
    const del = await again.send(
      IncrementalAlterConfigs,
      { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: '2', configs: [{ name: 'min.insync.replicas', configOperation: AlterConfigOpType.DELETE, value: null }] }], validateOnly: false },
      { version: 0 },
    );
    expect(del.responses[0]).toMatchObject({ errorCode: 0 });
    await b1.send(AlterConfigs, { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: '', configs: [] }], validateOnly: false }, { version: 0 });
    await waitFor(async () => (await produce('led-by-2', 8000, -1)) === 'OK', 15_000, 'broker 2 back to its static settings');
    expect(await produce('led-by-1', 8000, -1)).toBe('OK');
  }, 180_000);
});

/** Turning unclean.leader.election.enable on at <default> lets the controller elect an offline partition at once, as Kafka does. */
describe('unclean.leader.election.enable as a dynamic broker config', () => {
  let zk: TestZooKeeper;
  let client: ZkClient | undefined;
  const brokers = new Map<number, TestBroker>();
  afterAll(async () => {
    await client?.close();
    for (const b of brokers.values()) await b.stop().catch(() => {});
    await zk?.stop();
    for (const b of brokers.values()) removeDir(b.logDir);
  });

  it('an offline partition whose only live replica is out of the ISR gets that replica as leader', async () => {
    zk = await startZooKeeper();
    for (const id of [1, 2]) brokers.set(id, await startBroker(zk, id));
    const b1 = brokers.get(1)!;
    await b1.server.adminManager.createTopics([{ name: 'fragile', numPartitions: -1, replicationFactor: -1, assignments: new Map([[0, [2, 1]]]), configs: {} }], 10_000, false);
    client = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 6000, logger: silentLogger() });
    const kzk = new KafkaZkClient(client);
    const state = () => kzk.getPartitionState('fragile', 0).then((s) => s?.state);
    await waitFor(async () => (await state())?.isr.length === 2, 15_000, 'ISR [2,1]');
    // broker 1 leaves (controlled shutdown takes it out of the ISR), then broker 2, the last ISR member, goes too
    await b1.stop();
    await waitFor(async () => (await state())?.isr.join() === '2', 15_000, 'ISR [2]');
    await brokers.get(2)!.stop();
    // broker 1 comes back on the same log dir: it is live but not in the ISR, so the partition stays offline
    brokers.set(1, await startBroker(zk, 1, { port: String(b1.port) }, b1.logDir));
    const again = brokers.get(1)!;
    await waitFor(() => again.server.controller.isActive, 15_000, 'broker 1 is the controller');
    await new Promise((r) => setTimeout(r, 500));
    expect((await state())?.leader).toBe(-1);

    const conn = new Connection({ host: '127.0.0.1', port: again.port, clientId: 'unclean' });
    try {
      const res = await conn.send(
        IncrementalAlterConfigs,
        { resources: [{ resourceType: ConfigResourceType.BROKER, resourceName: '', configs: [{ name: 'unclean.leader.election.enable', configOperation: AlterConfigOpType.SET, value: 'true' }] }], validateOnly: false },
        { version: 1 },
      );
      expect(res.responses[0]).toMatchObject({ errorCode: 0 });
    } finally {
      await conn.close();
    }
    await waitFor(async () => (await state())?.leader === 1, 15_000, 'unclean election of broker 1');
    expect((await state())?.isr).toEqual([1]);
  }, 90_000);
});
