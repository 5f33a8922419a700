import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode } from '@gregor/common';
import { InitProducerId, Produce, readBatchHeader, type InitProducerIdResponse, type ProduceRequest, type ProduceResponse } from '@gregor/protocol';
import { FakeCluster } from '../test/fake-cluster.js';
import { KafkaClient } from './cluster.js';
import { Producer } from './producer.js';

/**
 * The idempotent producer's client side against fake brokers: producer ids, sequence numbers, retries that keep
 * them, and the reactions to sequence errors. (That the broker then writes each batch once is proven against real
 * brokers in test/integration and test/failure.)
 */
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

interface SentBatch {
  partition: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  count: number;
}

async function setup(leaders = [1]) {
  const cluster = (await FakeCluster.start([1], [InitProducerId])).serveData();
  cleanup.push(() => cluster.close());
  cluster.addTopic('t', leaders);
  let nextId = 100;
  const inits: number[] = [];
  cluster.broker(1).on(InitProducerId, (): InitProducerIdResponse => {
    inits.push(nextId);
    return { throttleTimeMs: 0, errorCode: 0, producerId: nextId++, producerEpoch: 0 };
  });
  const client = new KafkaClient({ brokers: cluster.bootstrap, retryBackoffMs: 5, retryBackoffMaxMs: 20 });
  cleanup.push(() => client.close());
  const sent = (): SentBatch[] =>
    cluster
      .broker(1)
      .requestsOf(Produce)
      .flatMap((r) =>
        (r.body as ProduceRequest).topicData[0]!.partitionData.map((p) => {
          const h = readBatchHeader(p.records!);
          return { partition: p.index, producerId: h.producerId, producerEpoch: h.producerEpoch, baseSequence: h.baseSequence, count: h.recordCount };
        }),
      );
  return { cluster, client, inits, sent };
}

const fast = { retryBackoffMs: 5, retryBackoffMaxMs: 20 };

/** A Produce answer for one partition of topic t. */
function answer(index: number, errorCode: number, baseOffset = -1): ProduceResponse {
  return { throttleTimeMs: 0, responses: [{ name: 't', partitionResponses: [{ index, errorCode, baseOffset, logAppendTimeMs: -1, logStartOffset: 0 }] }] };
}

describe('idempotent Producer', () => {
  it('gets one producer id and numbers each partition from 0, batch after batch', async () => {
    const { client, inits, sent } = await setup([1, 1]);
    const producer = new Producer(client, { ...fast, idempotent: true, batchSize: 200 });
    const messages = Array.from({ length: 12 }, (_, i) => ({ value: `${i}`.padEnd(40, '.'), partition: i % 2 }));
    const results = await producer.send({ topic: 't', messages });
    expect(results.map((r) => r.offset)).toEqual(messages.map((_, i) => Math.floor(i / 2)));
    expect(inits).toEqual([100]);
    expect(producer.producerId).toBe(100);
    for (const partition of [0, 1]) {
      const batches = sent().filter((b) => b.partition === partition);
      expect(batches.length).toBeGreaterThan(1);
      let next = 0;
      for (const b of batches) {
        expect([b.producerId, b.producerEpoch, b.baseSequence]).toEqual([100, 0, next]);
        next += b.count;
      }
      expect(next).toBe(6);
    }
  });

  it('keeps up to 5 requests in flight per partition, never more', async () => {
    const { cluster, client, sent } = await setup();
    const waiting: (() => void)[] = [];
    let maxInFlight = 0;
    cluster.broker(1).on(Produce, (body: ProduceRequest) => {
      const p = body.topicData[0]!.partitionData[0]!;
      const offset = cluster.append('t', 0, p.records!);
      return new Promise<ProduceResponse>((resolve) => {
        waiting.push(() => resolve(answer(0, 0, offset)));
        maxInFlight = Math.max(maxInFlight, waiting.length);
      });
    });
    const producer = new Producer(client, { ...fast, idempotent: true, batchSize: 100 });
    const sends = Array.from({ length: 12 }, (_, i) => producer.send({ topic: 't', messages: [{ value: `${i}`.padEnd(60, '.') }] }));
    for (let round = 0; round < 50 && (waiting.length > 0 || sent().length < 12); round++) {
      await new Promise((r) => setTimeout(r, 20));
      waiting.splice(0).forEach((release) => release());
    }
    const results = await Promise.all(sends);
    expect(results.map((r) => r[0]!.offset)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(maxInFlight).toBe(5);
    expect(sent().map((b) => b.baseSequence)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('a retry after a lost answer carries the same producer id and sequence', async () => {
    const { cluster, client, sent } = await setup();
    let drop = true;
    cluster.broker(1).on(Produce, (body: ProduceRequest, request) => {
      const offset = cluster.append('t', 0, body.topicData[0]!.partitionData[0]!.records!);
      if (drop) {
        drop = false;
        request.socket.destroy(); // written, but the answer never arrives
      }
      return answer(0, 0, offset);
    });
    const producer = new Producer(client, { ...fast, idempotent: true });
    await producer.send({ topic: 't', messages: [{ value: 'a' }, { value: 'b' }] });
    const [first, retry] = sent();
    expect(retry).toEqual(first);
    expect(first).toMatchObject({ producerId: 100, baseSequence: 0, count: 2 });
    await producer.send({ topic: 't', messages: [{ value: 'c' }] });
    expect(sent()[2]).toMatchObject({ producerId: 100, baseSequence: 2 });
  });

  it('OUT_OF_ORDER_SEQUENCE_NUMBER behind an unanswered batch is retried in order; for the next expected batch it fails and a new producer id starts at 0', async () => {
    const { cluster, client, sent, inits } = await setup();
    // The first batch fails retriably; the second, sent behind it, gets OUT_OF_ORDER: both retried, in order.
    const script = [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER];
    cluster.broker(1).on(Produce, async (body: ProduceRequest) => {
      const code = script.shift();
      await new Promise((r) => setTimeout(r, 10));
      if (code !== undefined) return answer(0, code);
      return answer(0, 0, cluster.append('t', 0, body.topicData[0]!.partitionData[0]!.records!));
    });
    const producer = new Producer(client, { ...fast, idempotent: true, batchSize: 80 });
    const [a, b] = await Promise.all([
      producer.send({ topic: 't', messages: [{ value: 'a'.repeat(40) }] }),
      producer.send({ topic: 't', messages: [{ value: 'b'.repeat(40) }] }),
    ]);
    expect([a[0]!.offset, b[0]!.offset]).toEqual([0, 1]);
    expect(sent().map((s) => s.baseSequence)).toEqual([0, 1, 0, 1]);

    // Now the broker has lost our sequence: the batch it should accept next is refused as out of order.
    script.push(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    await expect(producer.send({ topic: 't', messages: [{ value: 'c' }] })).rejects.toMatchObject({ code: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    await producer.send({ topic: 't', messages: [{ value: 'd' }] });
    expect(inits).toEqual([100, 101]);
    expect(sent().at(-1)).toMatchObject({ producerId: 101, baseSequence: 0 });
  });

  it('UNKNOWN_PRODUCER_ID: the batch is retried under a new producer id from sequence 0', async () => {
    const { cluster, client, sent, inits } = await setup();
    const producer = new Producer(client, { ...fast, idempotent: true });
    await producer.send({ topic: 't', messages: [{ value: 'a' }] });
    let forgot = true;
    cluster.broker(1).on(Produce, (body: ProduceRequest) => {
      if (forgot) {
        forgot = false;
        return answer(0, ErrorCode.UNKNOWN_PRODUCER_ID);
      }
      return answer(0, 0, cluster.append('t', 0, body.topicData[0]!.partitionData[0]!.records!));
    });
    const [r] = await producer.send({ topic: 't', messages: [{ value: 'b' }] });
    expect(r!.offset).toBe(1);
    expect(inits).toEqual([100, 101]);
    expect(sent().map((s) => [s.producerId, s.baseSequence])).toEqual([
      [100, 0],
      [100, 1],
      [101, 0],
    ]);
  });

  it('a send resolves only when every partition it wrote to has answered', async () => {
    const { cluster, client } = await setup([1, 1]);
    // The answer leaves partition 1 out (as after a leader move): it must be resent, not forgotten.
    let omit = true;
    cluster.broker(1).on(Produce, (body: ProduceRequest): ProduceResponse => {
      const parts = body.topicData[0]!.partitionData.filter((p) => !(omit && p.index === 1));
      if (parts.length < body.topicData[0]!.partitionData.length) omit = false;
      return {
        throttleTimeMs: 0,
        responses: [{ name: 't', partitionResponses: parts.map((p) => ({ index: p.index, errorCode: 0, baseOffset: cluster.append('t', p.index, p.records!), logAppendTimeMs: -1, logStartOffset: 0 })) }],
      };
    });
    const producer = new Producer(client, { ...fast, idempotent: true });
    const results = await producer.send({ topic: 't', messages: [{ value: 'x', partition: 0 }, { value: 'y', partition: 1 }] });
    expect(results.map((r) => [r.partition, r.offset])).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(cluster.logEndOffset('t', 1)).toBe(1);
  });

  it('validates: acks must be all, retries > 0, at most 5 in flight', async () => {
    const { client } = await setup();
    expect(() => new Producer(client, { idempotent: true, acks: 1 })).toThrow(ConfigError);
    expect(() => new Producer(client, { idempotent: true, retries: 0 })).toThrow(ConfigError);
    expect(() => new Producer(client, { idempotent: true, maxInFlightPerPartition: 6 })).toThrow(ConfigError);
    expect(() => new Producer(client, { maxInFlightPerPartition: 2 })).toThrow(ConfigError);
    const producer = new Producer(client, { idempotent: true });
    await expect(producer.send({ topic: 't', acks: 0, messages: [{ value: 'v' }] })).rejects.toThrow(ConfigError);
  });
});
