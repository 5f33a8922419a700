import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { CODEC_TYPE, storedBatches } from '../support/codec-topics.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const PYTHON = '/usr/bin/python3'; // Debian's, where python3-confluent-kafka installs
const SCRIPT = join(import.meta.dirname, '../support/confluent-group-consume.py');
const CODECS = ['snappy', 'lz4', 'zstd'] as const;
const PER_TOPIC = 3000;

interface Consumed {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  value: string;
}

function runConsumer(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(PYTHON, [SCRIPT, ...args], { maxBuffer: 64 << 20, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** python3-confluent-kafka (librdkafka 2.0) as a consumer group member reading topics gregor's producer compressed. */
describe('confluent-kafka (Python) consumer group over snappy, lz4 and zstd topics', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  const produced = new Map<string, string>(); // topic/key -> value

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.num.partitions': '2', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '100' });
    const client = new KafkaClient({ brokers: broker.bootstrap });
    try {
      await new Admin(client).createTopics(CODECS.map((c) => ({ name: `py-${c}`, numPartitions: 3, replicationFactor: 1 })));
      for (const codec of CODECS) {
        const producer = new Producer(client, { compression: codec });
        const messages = Array.from({ length: PER_TOPIC }, (_, i) => ({ key: `k${i}`, value: `${codec}:${i}:${'é'.repeat(i % 50)}${'q'.repeat((i * 13) % 700)}` }));
        for (let i = 0; i < messages.length; i += 1000) await producer.send({ topic: `py-${codec}`, messages: messages.slice(i, i + 1000) });
        for (const m of messages) produced.set(`py-${codec}/${m.key}`, m.value);
      }
    } finally {
      await client.close();
    }
  });
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('the topics are stored compressed with their codec', () => {
    for (const codec of CODECS) {
      for (let p = 0; p < 3; p++) {
        const batches = storedBatches(broker.logDir, `py-${codec}`, p);
        expect(batches.length).toBeGreaterThan(0);
        expect(batches.every((b) => b.compression === CODEC_TYPE[codec])).toBe(true);
      }
    }
  });

  it('one group member reads every record of the three topics byte-exact, in order per partition, and commits', async () => {
    const total = PER_TOPIC * CODECS.length;
    const r = await runConsumer([broker.bootstrap, 'py-codecs', String(total), ...CODECS.map((c) => `py-${c}`)]);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Consumed & { done?: number });
    expect(lines.at(-1), r.stderr.slice(-2000)).toEqual({ done: total });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const records = lines.slice(0, -1);
    const seen = new Map<string, string>();
    const lastOffset = new Map<string, number>();
    for (const rec of records) {
      const tp = `${rec.topic}-${rec.partition}`;
      expect(rec.offset).toBeGreaterThan(lastOffset.get(tp) ?? -1);
      lastOffset.set(tp, rec.offset);
      seen.set(`${rec.topic}/${Buffer.from(rec.key, 'hex').toString()}`, Buffer.from(rec.value, 'hex').toString());
    }
    expect(seen.size).toBe(total);
    expect(seen).toEqual(produced);
  });
});
