import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import {
  CompressionType,
  CreateTopics,
  Fetch,
  IncrementalAlterConfigs,
  Metadata,
  Produce,
  decodeMessageSet,
  decodeRecordSet,
  encodeMessageSet,
  encodeRecordBatch,
  forEachLegacyEntry,
  type FetchResponse,
} from '@gregor/protocol';
import { storedBatches } from '../support/codec-topics.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const TS = 1_700_000_000_000;
const records = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ offset: 1000 + i, timestamp: TS + i, key: Buffer.from(`${prefix}-k${i}`), value: Buffer.from(`${prefix}-v${i}-${'x'.repeat(i % 60)}`) }));

/**
 * Message formats v0/v1 against one broker, over the wire: Produce v0-2 sets are up-converted to RecordBatch v2 on
 * append (the codec kept), and Fetch v0-3 answers are down-converted to the magic the version knows, offsets kept,
 * cut at the size limits.
 */
describe('Produce v0-2 and Fetch v0-3 (message formats v0/v1)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let conn: Connection;

  async function createTopic(name: string, configs: { name: string; value: string }[] = []): Promise<void> {
    const res = await conn.send(CreateTopics, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs }], timeoutMs: 10_000 });
    expect(res.topics[0]!.errorCode).toBe(0);
    await waitFor(async () => (await conn.send(Metadata, { topics: [{ name }] }, { version: 0 })).topics[0]!.partitions[0]?.leaderId === 1, 10_000, 'leader');
  }

  const produce = async (version: number, topic: string, set: Buffer, acks = -1) => {
    const res = await conn.send(Produce, { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: set }] }] }, { version });
    return res.responses[0]!.partitionResponses[0]!;
  };

  const fetch = async (version: number, topic: string, fetchOffset: number, partitionMaxBytes = 1 << 20, maxBytes = 50 << 20) => {
    const res: FetchResponse = await conn.send(
      Fetch,
      { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes, isolationLevel: 0, topics: [{ topic, partitions: [{ partition: 0, fetchOffset, partitionMaxBytes }] }] },
      { version },
    );
    return res.responses[0]!.partitionResponses[0]!;
  };

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'num.partitions': '1' });
    conn = new Connection({ host: '127.0.0.1', port: broker.port, clientId: 'old-formats-test' });
    await conn.connect();
  });
  afterAll(async () => {
    await conn?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it.each([
    [0, 0],
    [1, 0],
    [2, 1],
  ] as const)('Produce v%i (magic %i): every legacy codec is stored as one RecordBatch v2 with that codec, offsets from the log', async (version, magic) => {
    const topic = `produce-v${version}`;
    await createTopic(topic);
    let next = 0;
    for (const codec of [0, 1, 2, 3]) {
      const input = records(25, `c${codec}`);
      const p = await produce(version, topic, encodeMessageSet({ magic, compression: codec, records: input }));
      expect(p).toMatchObject({ errorCode: 0, baseOffset: next, logAppendTimeMs: -1 });
      next += 25;
    }
    const batches = storedBatches(broker.logDir, topic);
    expect(batches.map((b) => [b.baseOffset, b.records, b.compression])).toEqual([0, 1, 2, 3].map((c, i) => [i * 25, 25, c]));
    // Read back at Fetch v11: RecordBatch v2 with the producer's keys, values and (v1) timestamps.
    const got = decodeRecordSet((await fetch(11, topic, 0)).recordSet!).flatMap((b) => b.records);
    const want = [0, 1, 2, 3].flatMap((c) => records(25, `c${c}`));
    expect(got.map((r) => [r.key!.toString(), r.value!.toString()])).toEqual(want.map((r) => [r.key.toString(), r.value.toString()]));
    expect(got.every((r, i) => r.timestamp === (magic === 0 ? -1 : want[i]!.timestamp))).toBe(true);
  });

  it('takes RecordBatch v2 sent in an old Produce as it is (Kafka does not check the magic below v3)', async () => {
    await createTopic('v2-in-v0');
    const v2 = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.gzip, firstTimestamp: TS, records: [{ key: null, value: Buffer.from('v2'), headers: [{ key: 'h', value: null }], timestamp: TS }] });
    expect(await produce(0, 'v2-in-v0', v2)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    const got = decodeRecordSet((await fetch(11, 'v2-in-v0', 0)).recordSet!).flatMap((b) => b.records);
    expect(got).toMatchObject([{ offset: 0, timestamp: TS, value: Buffer.from('v2'), headers: [{ key: 'h', value: null }] }]);
  });

  it('refuses bad producer sets with Kafka error codes and appends nothing for them', async () => {
    await createTopic('bad-sets', [{ name: 'max.message.bytes', value: '2000' }]);
    const good = encodeMessageSet({ magic: 1, compression: 0, records: records(2, 'ok') });
    const corrupt = Buffer.from(good);
    corrupt[corrupt.length - 1] ^= 1;
    expect((await produce(2, 'bad-sets', corrupt)).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    const big = encodeMessageSet({ magic: 0, compression: 0, records: [{ offset: 0, timestamp: -1, key: null, value: Buffer.alloc(3000, 7) }] });
    expect((await produce(0, 'bad-sets', big)).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const twoWrappers = Buffer.concat([encodeMessageSet({ magic: 1, compression: 1, records: records(1, 'a') }), encodeMessageSet({ magic: 1, compression: 1, records: records(1, 'b') })]);
    expect((await produce(2, 'bad-sets', twoWrappers)).errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect((await produce(2, 'bad-sets', encodeMessageSet({ magic: 1, compression: 0, timestampType: 1, logAppendTime: TS, records: records(1, 'c') }))).errorCode).toBe(
      ErrorCode.INVALID_TIMESTAMP,
    );
    // Only an incomplete entry: nothing appended, no error (Kafka 2.4).
    expect(await produce(1, 'bad-sets', good.subarray(0, 20))).toMatchObject({ errorCode: 0, baseOffset: -1 });
    expect(await produce(1, 'bad-sets', good)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(broker.server.logManager.getLog('bad-sets', 0)!.logEndOffset).toBe(2);
  });

  it('message.downconversion.enable=false: Fetch v0-3 consumers get UNSUPPORTED_VERSION, v4+ the records', async () => {
    await createTopic('no-down', [{ name: 'message.downconversion.enable', value: 'false' }]);
    expect((await produce(2, 'no-down', encodeMessageSet({ magic: 1, compression: 0, records: records(3, 'nd') }))).errorCode).toBe(0);
    for (const version of [0, 1, 2, 3]) {
      const p = await fetch(version, 'no-down', 0);
      expect(p).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_VERSION, highWatermark: -1 });
      expect(p.recordSet!.length).toBe(0);
    }
    expect(decodeRecordSet((await fetch(4, 'no-down', 0)).recordSet!).flatMap((b) => b.records)).toHaveLength(3);
  });

  it('log.message.downconversion.enable=false (a dynamic broker default) refuses Fetch v0-3 for topics without an override; a topic override of true wins', async () => {
    await createTopic('down-default');
    await createTopic('down-override', [{ name: 'message.downconversion.enable', value: 'true' }]);
    for (const t of ['down-default', 'down-override']) expect((await produce(2, t, encodeMessageSet({ magic: 1, compression: 0, records: records(2, t) }))).errorCode).toBe(0);
    const setDefault = async (configOperation: number, value: string | null) => {
      // Broker resource (type 4), name '' = the cluster-wide <default> entity.
      const res = await conn.send(IncrementalAlterConfigs, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'log.message.downconversion.enable', configOperation, value }] }], validateOnly: false });
      expect(res.responses[0]!.errorCode).toBe(0);
    };
    await setDefault(0, 'false');
    try {
      await waitFor(async () => (await fetch(3, 'down-default', 0)).errorCode === ErrorCode.UNSUPPORTED_VERSION, 10_000, 'broker default applied');
      expect(decodeMessageSet((await fetch(3, 'down-override', 0)).recordSet!)).toHaveLength(2);
      expect(decodeRecordSet((await fetch(4, 'down-default', 0)).recordSet!).flatMap((b) => b.records)).toHaveLength(2);
    } finally {
      await setDefault(1, null);
    }
    await waitFor(async () => (await fetch(3, 'down-default', 0)).errorCode === ErrorCode.NONE, 10_000, 'broker default removed');
  });

  describe('Fetch v0-3 of RecordBatch v2 data', () => {
    const topic = 'fetch-old';
    const stored: { offset: number; key: string; value: string }[] = [];
    beforeAll(async () => {
      await createTopic(topic);
      // Batches of 20: uncompressed, gzip, snappy, lz4, uncompressed; then a zstd batch.
      for (const codec of [0, 1, 2, 3, 0, 4] as const) {
        const base = stored.length;
        const recs = Array.from({ length: 20 }, (_, i) => ({ key: Buffer.from(`k${base + i}`), value: Buffer.from(`value-${base + i}-${'y'.repeat((base + i) % 50)}`), headers: [{ key: 'h', value: null }], timestamp: TS + base + i }));
        const p = await produce(8, topic, encodeRecordBatch({ baseOffset: 0, compression: codec, firstTimestamp: TS + base, records: recs }));
        expect(p).toMatchObject({ errorCode: 0, baseOffset: base });
        stored.push(...recs.map((r, i) => ({ offset: base + i, key: r.key.toString(), value: r.value.toString() })));
      }
    });

    it.each([
      [0, 0],
      [1, 0],
      [2, 1],
      [3, 1],
    ] as const)('v%i answers magic %i messages with their offsets, the codec of each batch, and stops before the zstd batch', async (version, magic) => {
      const p = await fetch(version, topic, 0);
      expect(p).toMatchObject({ errorCode: 0, highWatermark: 120 });
      const got = decodeMessageSet(p.recordSet!);
      expect(got.map((r) => ({ offset: r.offset, key: r.key!.toString(), value: r.value!.toString() }))).toEqual(stored.slice(0, 100));
      expect(got.every((r) => r.magic === magic)).toBe(true);
      expect(got.map((r) => r.compression)).toEqual([0, 1, 2, 3, 0].flatMap((c) => Array(20).fill(c)));
      expect(got.every((r, i) => r.timestamp === (magic === 0 ? -1 : TS + i))).toBe(true);
      // Fetching at the zstd batch: UNSUPPORTED_COMPRESSION_TYPE with an empty set, as Kafka answers Fetch < v10.
      const z = await fetch(version, topic, 100);
      expect(z).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, highWatermark: -1 });
      expect(z.recordSet!.length).toBe(0);
    });

    it('drops records below the fetch offset from an uncompressed batch, keeps a compressed wrapper whole', async () => {
      const plain = decodeMessageSet((await fetch(0, topic, 85, 2000)).recordSet!);
      expect(plain[0]!.offset).toBe(85);
      const gz = decodeMessageSet((await fetch(2, topic, 25, 2000)).recordSet!);
      expect(gz[0]!.offset).toBe(20);
    });

    it('cuts the converted set at partition_max_bytes: v0-2 may end with (or be only) a partial message, v3 keeps the first whole', async () => {
      for (const version of [0, 1, 2, 3]) {
        const p = await fetch(version, topic, 0, 300);
        expect(p.recordSet!.length, `v${version}`).toBe(300);
        let complete = 0;
        const covered = forEachLegacyEntry(p.recordSet!, () => void complete++, { allowPartialTail: true });
        expect(complete).toBeGreaterThan(0);
        expect(covered).toBeLessThan(300);
      }
      // The gzip wrapper (offsets 20-39) is larger than 50 bytes: v0-2 get its first 50 bytes, v3 all of it.
      for (const version of [0, 1, 2]) {
        const p = await fetch(version, topic, 20, 50);
        expect(p.recordSet!.length).toBe(50);
        expect(decodeMessageSet(p.recordSet!)).toEqual([]);
      }
      const v3 = await fetch(3, topic, 20, 50);
      expect(decodeMessageSet(v3.recordSet!).map((r) => r.offset)).toEqual(Array.from({ length: 20 }, (_, i) => 20 + i));
      // v3's max_bytes bounds the whole answer (here one partition) like partition_max_bytes.
      expect((await fetch(3, topic, 0, 1 << 20, 500)).recordSet!.length).toBe(500);
    });

    it('v4+ still answers RecordBatch v2 as stored', async () => {
      const p = await fetch(4, topic, 0);
      expect(decodeRecordSet(p.recordSet!).flatMap((b) => b.records)).toHaveLength(120);
    });
  });
});
