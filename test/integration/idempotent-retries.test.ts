import { Kafka, logLevel } from 'kafkajs';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { freePorts } from '@gregor/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DroppingProxy } from '../support/dropping-proxy.js';
import { idempotenceProblems, readBatches } from '../support/idempotent-log.js';
import { runConfluentProducer } from '../support/confluent-producer.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * Lost Produce answers (issue 10): clients reach the broker only through a proxy that swallows some Produce
 * answers after the broker appended the batch. Producers retry; with idempotence every record is stored exactly
 * once, without it the same retries write duplicates (which shows the check can fail).
 */
describe('idempotent retries after lost answers (one broker behind a dropping proxy)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let proxy: DroppingProxy;
  let bootstrap: string;

  beforeAll(async () => {
    zk = await startZooKeeper();
    const [brokerPort, proxyPort] = await freePorts(2);
    proxy = await DroppingProxy.start(proxyPort!, { host: '127.0.0.1', port: brokerPort! });
    bootstrap = `127.0.0.1:${proxyPort}`;
    broker = await startBroker(zk, 1, { port: String(brokerPort), 'advertised.listeners': `PLAINTEXT://${bootstrap}`, 'num.partitions': '2' });
    const client = new KafkaClient({ brokers: bootstrap });
    await new Admin(client).createTopics(['gregor', 'plain', 'kjs', 'rdkafka'].map((name) => ({ name, numPartitions: 2, replicationFactor: 1 })));
    await client.close();
  });
  afterAll(async () => {
    await proxy?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  /** Drops about one Produce answer in `every`. */
  function dropEvery(every: number): void {
    let n = 0;
    proxy.dropProduceResponse = () => ++n % every === 0;
  }

  /** Both partitions' batches; idempotence (sequences are per partition) checked on each. */
  async function stored(topic: string) {
    const partitions = [await readBatches(broker.port, topic, 0), await readBatches(broker.port, topic, 1)];
    return { batches: partitions.flat(), problems: partitions.flatMap((p, i) => idempotenceProblems(p).map((x) => `partition ${i}: ${x}`)) };
  }

  it("gregor's idempotent producer: every send resolves, each value once, offsets as answered", async () => {
    dropEvery(5);
    const client = new KafkaClient({ brokers: bootstrap, requestTimeoutMs: 5000 });
    // Small batches: many Produce requests, up to 5 in flight per partition.
    const producer = new Producer(client, { idempotent: true, retryBackoffMs: 20, retryBackoffMaxMs: 100, batchSize: 300 });
    const answered = new Map<string, string>();
    const sends = Array.from({ length: 60 }, async (_, s) => {
      const messages = Array.from({ length: 10 }, (_, i) => ({ key: `k${(s * 10 + i) % 7}`, value: `g-${s * 10 + i}` }));
      const results = await producer.send({ topic: 'gregor', messages });
      results.forEach((r, i) => answered.set(messages[i]!.value, `${r.partition}@${r.offset}`));
    });
    await Promise.all(sends);
    await producer.close();
    await client.close();
    expect(proxy.dropped).toBeGreaterThan(3);
    expect((await stored('gregor')).problems).toEqual([]);
    const where = new Map<string, string>();
    for (const [partition, list] of [await readBatches(broker.port, 'gregor', 0), await readBatches(broker.port, 'gregor', 1)].entries()) {
      for (const b of list) b.values.forEach((v, i) => where.set(v, `${partition}@${b.baseOffset + i}`));
    }
    expect(where.size).toBe(600);
    expect(new Map([...answered].sort())).toEqual(new Map([...where].sort()));
  });

  it('the same lost answers without idempotence write duplicates', async () => {
    dropEvery(5);
    const client = new KafkaClient({ brokers: bootstrap, requestTimeoutMs: 5000 });
    const producer = new Producer(client, { retryBackoffMs: 20, retryBackoffMaxMs: 100 });
    for (let s = 0; s < 20; s++) await producer.send({ topic: 'plain', messages: Array.from({ length: 5 }, (_, i) => ({ value: `p-${s * 5 + i}` })) });
    await client.close();
    const values = (await stored('plain')).batches.flatMap((b) => b.values);
    expect(new Set(values).size).toBe(100);
    expect(values.length).toBeGreaterThan(100);
  });

  it('kafkajs 2.2.4 with idempotent: true: each value once, contiguous sequences', async () => {
    dropEvery(4);
    const kafka = new Kafka({ clientId: 'kjs-idem', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 50, maxRetryTime: 500 } });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let s = 0; s < 40; s++) {
      await producer.send({ topic: 'kjs', acks: -1, messages: Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `j-${s * 5 + i}` })) });
    }
    await producer.disconnect();
    expect(proxy.dropped).toBeGreaterThan(3);
    const { batches, problems } = await stored('kjs');
    expect(problems).toEqual([]);
    expect(batches.flatMap((b) => b.values).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `j-${i}`).sort());
    expect(batches.every((b) => b.producerId >= 0)).toBe(true);
  });

  it('python3-confluent-kafka (librdkafka) with enable.idempotence: every acknowledged value once, at its reported offset', async () => {
    // (kcat gives up when its only broker connection drops, so librdkafka runs here through confluent-kafka.)
    dropEvery(6);
    const run = runConfluentProducer(bootstrap, 'rdkafka', 1500, 'r', 0, { 'linger.ms': 2, 'batch.num.messages': 40 });
    const { code, stderr } = await run.done;
    expect(code, stderr.slice(-2000)).toBe(0);
    expect(run.acked).toHaveLength(1500);
    const { batches, problems } = await stored('rdkafka');
    expect(problems).toEqual([]);
    const where = new Map<string, string>();
    for (const [partition, list] of [await readBatches(broker.port, 'rdkafka', 0), await readBatches(broker.port, 'rdkafka', 1)].entries()) {
      for (const b of list) b.values.forEach((v, i) => where.set(v, `${partition}@${b.baseOffset + i}`));
    }
    expect(batches.flatMap((b) => b.values)).toHaveLength(1500);
    for (const d of run.acked) expect(where.get(d.value)).toBe(`${d.partition}@${d.offset}`);
  });
});
