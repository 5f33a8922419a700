import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import { CompressionType, encodeRecordBatch, InitProducerId, Metadata, Produce } from '@gregor/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcat } from '../support/kcat.js';
import { idempotenceProblems, readBatches } from '../support/idempotent-log.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Idempotent producer (issue 10): InitProducerId and the leader's producer-state checks, over the wire, one broker. */
describe('idempotent producer against one broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let conn: Connection;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'num.partitions': '1' });
    conn = new Connection({ host: '127.0.0.1', port: broker.port, clientId: 'idempotence' });
    await conn.connect();
  });
  afterAll(async () => {
    await conn?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('InitProducerId v0-v2: a null transactional id gets a fresh id and epoch 0; "" is INVALID_REQUEST; a transactional id NOT_COORDINATOR', async () => {
    expect(conn.apiVersions.get(InitProducerId.apiKey)).toEqual({ minVersion: 0, maxVersion: 2 });
    const ids: number[] = [];
    for (const version of [0, 1, 2]) {
      const r = await conn.send(InitProducerId, { transactionalId: null, transactionTimeoutMs: 60000 }, { version });
      expect(r).toMatchObject({ errorCode: ErrorCode.NONE, producerEpoch: 0 });
      ids.push(r.producerId);
      expect(await conn.send(InitProducerId, { transactionalId: '', transactionTimeoutMs: 60000 }, { version })).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, producerId: -1, producerEpoch: -1 });
      expect((await conn.send(InitProducerId, { transactionalId: 'txn', transactionTimeoutMs: 60000 }, { version })).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    }
    expect(new Set(ids).size).toBe(3);
    // the broker claimed a block of 1000 at startup, in Kafka's JSON
    const block = JSON.parse((await broker.server.zk.zk.getData('/latest_producer_id_block')).data.toString()) as Record<string, unknown>;
    expect(block).toMatchObject({ version: 1, broker: 1 });
    expect(Number(block.block_end) - Number(block.block_start)).toBe(999);
    for (const id of ids) expect(id).toBeGreaterThanOrEqual(Number(block.block_start));
  });

  it('Produce: a retried batch gets its original offset; gaps, old epochs and unknown producers are refused', async () => {
    const { producerId } = await conn.send(InitProducerId, { transactionalId: null, transactionTimeoutMs: 60000 });
    const batch = (baseSequence: number, n: number, producerEpoch = 0, pid = producerId) =>
      encodeRecordBatch({
        baseOffset: 0,
        compression: CompressionType.none,
        firstTimestamp: Date.now(),
        producerId: pid,
        producerEpoch,
        baseSequence,
        records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`s${baseSequence + i}`), headers: [], timestamp: Date.now() })),
      });
    const produce = async (records: Buffer) => {
      const r = await conn.send(Produce, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'idem', partitionData: [{ index: 0, records }] }] });
      return r.responses[0]!.partitionResponses[0]!;
    };
    // Metadata creates the topic (auto.create.topics.enable); then the leader must be in place.
    await waitFor(async () => (await conn.send(Metadata, { topics: [{ name: 'idem' }], allowAutoTopicCreation: true })).topics[0]?.partitions[0]?.leaderId === 1, 20_000, 'topic idem');
    await waitFor(async () => (await produce(batch(0, 3))).errorCode === ErrorCode.NONE, 20_000, 'first batch written');
    const second = batch(3, 2);
    const first = await produce(second);
    expect(first).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 3 });
    const retried = await produce(second);
    expect(retried).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 3 });
    expect(retried.logAppendTimeMs).toBeGreaterThan(0); // Kafka answers a duplicate with its batch timestamp
    expect((await produce(batch(9, 1))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect((await produce(batch(5, 1, 1))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER); // a new epoch must restart at 0
    expect((await produce(batch(0, 1, 1))).errorCode).toBe(ErrorCode.NONE);
    expect((await produce(batch(1, 1, 0))).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect((await produce(batch(4, 1, 0, producerId + 1))).errorCode).toBe(ErrorCode.UNKNOWN_PRODUCER_ID);
    const noSequence = batch(0, 1);
    noSequence.writeInt32BE(-1, 53); // base_sequence -1 with a producer id
    expect((await produce(noSequence)).errorCode).not.toBe(ErrorCode.NONE);
    const stored = await readBatches(broker.port, 'idem', 0);
    expect(stored.map((b) => [b.baseOffset, b.producerEpoch, b.baseSequence])).toEqual([
      [0, 0, 0],
      [3, 0, 3],
      [5, 1, 0],
    ]);
  });

  it('kcat (librdkafka) with enable.idempotence=true: every line once, one producer id, contiguous sequences', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `k-${i}`);
    const p = await kcat(['-b', broker.bootstrap, '-P', '-t', 'idem-kcat', '-p', '0', '-X', 'enable.idempotence=true', '-X', 'linger.ms=5'], lines.join('\n') + '\n');
    expect(p.code, p.stderr).toBe(0);
    const stored = await readBatches(broker.port, 'idem-kcat', 0);
    expect(stored.flatMap((b) => b.values)).toEqual(lines);
    expect(new Set(stored.map((b) => b.producerId)).size).toBe(1);
    expect(stored[0]!.producerId).toBeGreaterThanOrEqual(0);
    expect(idempotenceProblems(stored)).toEqual([]);
  });
});
