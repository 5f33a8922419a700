import { afterEach, describe, expect, it } from 'vitest';
import { CompressionType, decodeRecordBatch } from '@gregor/protocol';
import { KafkaClient } from './cluster.js';
import { DefaultPartitioner } from './partitioner.js';
import { RecordAccumulator, type AppendOptions, type PendingSend } from './record-accumulator.js';
import type { RecordMetadata } from './producer.js';

const clients: KafkaClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

function accumulator(batchSize = 16_384): RecordAccumulator {
  // Appending talks to no broker: the client is only there for the sender's metadata.
  const client = new KafkaClient({ brokers: '127.0.0.1:1' });
  clients.push(client);
  return new RecordAccumulator(client, { batchSize, lingerMs: 0, partitioner: new DefaultPartitioner() });
}

function send(records: number): PendingSend {
  const results = Array.from({ length: records }, () => ({ timestamp: 1_700_000_000_000 }) as RecordMetadata);
  return { results, remaining: records, settled: false, resolve: () => {}, reject: () => {} };
}

const options: AppendOptions = { acks: -1, compression: 'none', timeoutMs: 30_000, keyless: false, numPartitions: 2, available: [0, 1] };
const value = Buffer.alloc(100, 1);

describe('RecordAccumulator batch buffers', () => {
  it('sizes a new batch for the rest of its send, up to batch.size', () => {
    const acc = accumulator();
    const one = send(1);
    acc.append('t', 0, null, value, [], 1_700_000_000_000, one, 0, options);
    const small = acc.queues.get('t-0')![0]!.builder.capacityBytes;
    expect(small).toBeLessThan(1024); // was 16 KiB + header for every batch

    const many = send(1000);
    for (let i = 0; i < 1000; i++) acc.append('t', 1, null, value, [], 1_700_000_000_000, many, i, options);
    const batches = acc.queues.get('t-1')!;
    expect(batches.length).toBeGreaterThan(1);
    expect(batches[0]!.builder.capacityBytes).toBeGreaterThanOrEqual(16_384); // batch.size at once, no growing
    // Every record went in whole, and the last batch holds the send's tail.
    expect(batches.reduce((n, b) => n + b.builder.count, 0)).toBe(1000);
    expect(batches.at(-1)!.builder.capacityBytes).toBeLessThanOrEqual(batches[0]!.builder.capacityBytes);
  });

  it('grows a small batch as later sends join it', () => {
    const acc = accumulator();
    for (let i = 0; i < 100; i++) acc.append('t', 0, null, value, [], 1_700_000_000_000 + i, send(1), 0, options);
    const [batch] = acc.queues.get('t-0')!;
    expect(acc.queues.get('t-0')).toHaveLength(1);
    expect(batch!.builder.count).toBe(100);
    expect(batch!.builder.capacityBytes).toBeGreaterThanOrEqual(batch!.builder.sizeInBytes);
    const decoded = decodeRecordBatch(batch!.builder.build({ compression: CompressionType.none, producerId: -1, producerEpoch: -1, baseSequence: -1 }));
    expect(decoded.records.map((r) => r.timestamp)).toEqual(Array.from({ length: 100 }, (_, i) => 1_700_000_000_000 + i));
    expect(decoded.records.every((r) => r.value!.equals(value))).toBe(true);
  });
});
