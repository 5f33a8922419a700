import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Admin, Connection, KafkaClient } from '@gregor/client';
import { CompressionType, ListOffsets, Produce, encodeRecordBatch } from '@gregor/protocol';
import { fakeCountBatch } from '../support/decompression-bombs.js';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Kafka's LogValidator on a real broker: what producers send is walked record by record before it is stored. */
describe('record validation on the leader', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let client: KafkaClient;
  let conn: Connection;
  let kafka: Kafka;

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'auto.create.topics.enable': 'false' });
    client = new KafkaClient({ brokers: broker.bootstrap });
    const created = await new Admin(client).createTopics([
      { name: 'plain', numPartitions: 1, replicationFactor: 1 },
      { name: 'compacted', numPartitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'compact' } },
      { name: 'skew', numPartitions: 1, replicationFactor: 1, configs: { 'message.timestamp.difference.max.ms': '60000' } },
      { name: 'appendtime', numPartitions: 1, replicationFactor: 1, configs: { 'message.timestamp.type': 'LogAppendTime' } },
    ]);
    expect(created.map((c) => c.errorCode)).toEqual([0, 0, 0, 0]);
    conn = new Connection({ host: '127.0.0.1', port: broker.port, clientId: 'forger' });
    await conn.connect();
    kafka = new Kafka({ clientId: 'validation', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  });
  afterAll(async () => {
    await conn?.close();
    await client?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  const produce = (topic: string, records: Buffer) =>
    conn.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });

  async function logEndOffset(topic: string): Promise<number> {
    const r = await conn.send(ListOffsets, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] });
    return Number(r!.topics[0]!.partitions[0]!.offset);
  }

  it('300 batches claiming 2^31-1 records are refused with INVALID_RECORD: offsets stay dense, no segment rolls', async () => {
    const before = await logEndOffset('plain');
    const forged = fakeCountBatch();
    for (let i = 0; i < 300; i++) expect((await produce('plain', forged))!.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(await logEndOffset('plain')).toBe(before);
    expect(readdirSync(join(broker.logDir, 'plain-0')).filter((f) => f.endsWith('.log'))).toHaveLength(1);
    const now = Date.now();
    const good = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.gzip, firstTimestamp: now, records: [{ key: null, value: Buffer.from('ok'), headers: [], timestamp: now }] });
    expect((await produce('plain', good))!.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: before });
  });

  it('a record with a stray offset delta is named in Produce v8 record_errors', async () => {
    const now = Date.now();
    const records = [0, 1, 9].map((offsetDelta) => ({ key: null, value: Buffer.from(`v${offsetDelta}`), headers: [], timestamp: now, offsetDelta }));
    const batch = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, lastOffsetDelta: 2, records });
    const p = (await produce('plain', batch))!.responses[0]!.partitionResponses[0]!;
    expect(p.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(p.recordErrors).toEqual([{ batchIndex: 2, batchIndexErrorMessage: expect.stringMatching(/offset delta 9/) }]);
    expect(p.errorMessage).toMatch(/offset delta 9/);
  });

  it('kafkajs and kcat cannot write keyless records to a compacted topic (INVALID_RECORD); keyed ones are stored', async () => {
    const producer = kafka.producer();
    await producer.connect();
    try {
      await expect(producer.send({ topic: 'compacted', messages: [{ value: 'no key' }] })).rejects.toMatchObject({ type: 'INVALID_RECORD' });
      await producer.send({ topic: 'compacted', messages: [{ key: 'k', value: 'keyed' }] });
    } finally {
      await producer.disconnect();
    }
    const k = await kcat(['-b', broker.bootstrap, '-P', '-t', 'compacted', '-p', '0'], 'keyless\n', 60_000, { allowCodes: [1] });
    expect(k.code).toBe(1);
    expect(k.stderr).toMatch(/Delivery failed for message: Broker: /);
    expect(await logEndOffset('compacted')).toBe(1);
  });

  it('message.timestamp.difference.max.ms refuses stale CreateTime records with INVALID_TIMESTAMP', async () => {
    const producer = kafka.producer();
    await producer.connect();
    try {
      const stale = String(Date.now() - 3_600_000);
      await expect(producer.send({ topic: 'skew', messages: [{ value: 'old', timestamp: stale }] })).rejects.toMatchObject({ type: 'INVALID_TIMESTAMP' });
      await producer.send({ topic: 'skew', messages: [{ value: 'fresh' }] });
    } finally {
      await producer.disconnect();
    }
    expect(await logEndOffset('skew')).toBe(1);
  });

  it("message.timestamp.type=LogAppendTime: consumers see the leader's clock, not the producer's timestamp", async () => {
    const producer = kafka.producer();
    await producer.connect();
    const before = Date.now();
    try {
      const [meta] = await producer.send({ topic: 'appendtime', messages: [{ value: 'a', timestamp: '1000' }, { value: 'b', timestamp: '2000' }] });
      expect(Number(meta!.logAppendTime)).toBeGreaterThanOrEqual(before);
    } finally {
      await producer.disconnect();
    }
    const after = Date.now();
    const out = await kcat(['-b', broker.bootstrap, '-C', '-t', 'appendtime', '-p', '0', '-o', 'beginning', '-e', '-f', '%T %s\n']);
    expect(out.code).toBe(0);
    const lines = out.stdout.toString().trim().split('\n');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['a', 'b']);
    for (const l of lines) {
      const ts = Number(l.split(' ')[0]);
      expect(ts).toBeGreaterThanOrEqual(before);
      expect(ts).toBeLessThanOrEqual(after);
    }
  });
});
