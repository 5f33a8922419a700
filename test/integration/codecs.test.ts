import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { Admin, Consumer, KafkaClient, Producer, Reader, type CompressionName } from '@gregor/client';
import { startAdminServer, type AdminServer } from '@gregor/admin';
import { ZookeeperConsumerConnector } from '@gregor/consumer';
import { CODECS, CODEC_TYPE, recordsWithCodec, storedBatches, type Codec } from '../support/codec-topics.js';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const CLI = join(import.meta.dirname, '../../packages/cli/dist/main.js');
const N = 2000;

interface Line {
  key: string;
  value: string;
}

/** Keyed lines with multi-byte characters and values of varied length (some span kcat's batches). */
function linesFor(codec: string): Line[] {
  return Array.from({ length: N }, (_, i) => ({ key: `${codec}-key-${i % 97}`, value: `v${i}-ünïcødé-€-${'z'.repeat((i * 37) % 400)}-${i}` }));
}

function runCli(args: string[], input: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end(input);
  });
}

/**
 * The four codecs end to end on a real broker: librdkafka (kcat) writes each and every gregor reader gets
 * every record back byte-exact; gregor's producer writes each and kcat reads it back; ListOffsets by
 * timestamp lands inside compressed batches; compaction keeps the codec. librdkafka compresses with gzip,
 * snappy and lz4 only when the broker's Produce range starts at v0 (rdkafka_msgset_writer.c checks its MsgVer
 * features), which gregor now advertises: kcat talks to the broker directly and its batches arrive compressed.
 */
describe('compression codecs (gzip, snappy, lz4, zstd) end to end', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let bootstrap: string;
  let http: AdminServer;
  let client: KafkaClient;

  async function createTopic(name: string, configs: Record<string, string> = {}): Promise<void> {
    const [created] = await new Admin(client).createTopics([{ name, numPartitions: 1, replicationFactor: 1, configs }]);
    expect(created!.errorCode).toBe(0);
  }

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, {
      'num.partitions': '1',
      'offsets.topic.num.partitions': '2',
      'offsets.topic.replication.factor': '1',
      'group.initial.rebalance.delay.ms': '100',
    });
    bootstrap = broker.bootstrap;
    client = new KafkaClient({ brokers: bootstrap });
    http = await startAdminServer(broker.server, { host: '127.0.0.1', port: 0, logger: silentLogger() });
  });
  afterAll(async () => {
    await http?.close();
    await client?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  async function kcatWrite(topic: string, codec: Codec, lines: Line[], extra: string[] = []): Promise<void> {
    const input = lines.map((l) => `${l.key}\t${l.value}`).join('\n') + '\n';
    const p = await kcat(['-b', bootstrap, '-P', '-t', topic, '-K', '\t', '-z', codec, '-H', `codec=${codec}`, '-X', 'linger.ms=50', '-X', 'batch.num.messages=400', ...extra], input, 120_000);
    expect(p.code, p.stderr).toBe(0);
  }

  function expectExact(got: { key: Buffer | string | null; value: Buffer | string | null }[], lines: Line[]): void {
    expect(got.length).toBe(lines.length);
    const mismatch = got.findIndex((r, i) => String(r.key) !== lines[i]!.key || String(r.value) !== lines[i]!.value);
    expect(mismatch, `first mismatch at ${mismatch}`).toBe(-1);
  }

  describe.each(CODECS)('%s written by kcat (librdkafka)', (codec) => {
    const topic = `kcat-${codec}`;
    const lines = linesFor(codec);
    beforeAll(async () => {
      await kcatWrite(topic, codec, lines);
      await waitFor(async () => (await storedBatches(broker.logDir, topic)).reduce((n, b) => n + b.records, 0) === N, 15_000, 'all records stored');
    });

    it('is stored as librdkafka compressed it', () => {
      const batches = storedBatches(broker.logDir, topic);
      expect(batches.length).toBeGreaterThan(1);
      // librdkafka leaves a batch of one small record uncompressed; everything else carries the codec.
      expect(recordsWithCodec(batches, codec)).toBeGreaterThan(N - 10);
    });

    it("gregor's Consumer reads every record byte-exact, headers included", async () => {
      const got = [];
      for await (const r of new Consumer(client, { maxWaitMs: 50 }).consume({ topic, untilEnd: true })) got.push(r);
      expectExact(got, lines);
      expect(got.every((r) => r.headers.length === 1 && r.headers[0]!.key === 'codec' && r.headers[0]!.value!.toString() === codec)).toBe(true);
    });

    it('the Reader (consumer group) reads every record byte-exact', async () => {
      const reader = new Reader({ brokers: bootstrap, groupId: `reader-${codec}`, topic, sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, maxWaitMs: 50 });
      try {
        const got = [];
        for (let i = 0; i < N; i++) got.push(await reader.fetchMessage());
        expectExact(got, lines);
      } finally {
        await reader.close();
      }
    });

    it('the ZooKeeper consumer connector reads every record byte-exact', async () => {
      const connector = await ZookeeperConsumerConnector.create(
        { 'group.id': `zk-${codec}`, 'zookeeper.connect': zk.connectString, 'auto.offset.reset': 'smallest', 'consumer.timeout.ms': '20000' },
        { logger: silentLogger() },
      );
      try {
        const [stream] = (await connector.createMessageStreams({ [topic]: 1 }))[topic]!;
        const got = [];
        for await (const m of stream!) {
          got.push(m);
          if (got.length === N) break;
        }
        expectExact(got, lines);
      } finally {
        await connector.shutdown();
      }
    });

    it('the HTTP record reads return every record byte-exact', async () => {
      const got: { key: string | null; value: string | null; headers: Record<string, string | null> }[] = [];
      let offset = 0;
      while (offset < N) {
        const res = await fetch(`http://127.0.0.1:${http.port}/v1/topics/${topic}/partitions/0/records?offset=${offset}&limit=100`);
        expect(res.status, await res.clone().text()).toBe(200);
        const body = (await res.json()) as { nextOffset: number; records: (typeof got)[number][] };
        expect(body.nextOffset).toBeGreaterThan(offset);
        got.push(...body.records);
        offset = body.nextOffset;
      }
      expectExact(got, lines);
      expect(got.every((r) => r.headers.codec === codec)).toBe(true);
    });
  });

  it.each(CODECS)("kcat reads back byte-exact what gregor's producer (gregor produce --compression %s) wrote", async (codec) => {
    const topic = `gregor-${codec}`;
    const lines = linesFor(`g${codec}`);
    await createTopic(topic);
    const produced = await runCli(['produce', '--topic', topic, '--bootstrap-server', bootstrap, '--key-separator', '\\t', '--compression', codec, '--quiet'], lines.map((l) => `${l.key}\t${l.value}`).join('\n') + '\n');
    expect(produced.code, produced.stderr).toBe(0);
    const batches = storedBatches(broker.logDir, topic);
    expect(batches.every((b) => b.compression === CODEC_TYPE[codec])).toBe(true);
    expect(recordsWithCodec(batches, codec)).toBe(N);
    const c = await kcat(['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%k\t%s\n'], undefined, 120_000);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString() === lines.map((l) => `${l.key}\t${l.value}\n`).join('')).toBe(true);
  });

  it.each(CODECS)('ListOffsets by timestamp finds the record inside a %s batch (kcat -Q)', async (codec) => {
    const topic = `times-${codec}`;
    const base = Date.now() - 60_000;
    await createTopic(topic);
    const producer = new Producer(client, { compression: codec as CompressionName, batchSize: 1 << 20 });
    await producer.send({ topic, messages: Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: base + i * 10 })) });
    const batches = storedBatches(broker.logDir, topic);
    expect(batches).toMatchObject([{ baseOffset: 0, records: 100, compression: CODEC_TYPE[codec] }]);
    for (const [ts, offset] of [
      [base + 505, 51],
      [base + 10, 1],
      [base + 990, 99],
      [base - 1, 0],
    ] as const) {
      const q = await kcat(['-b', bootstrap, '-Q', '-t', `${topic}:0:${ts}`]);
      expect(q.code, q.stderr).toBe(0);
      expect(q.stdout.toString()).toMatch(new RegExp(`${topic} \\[0\\]\\s+offset ${offset}\\b`));
    }
  });

  it('topic compression.type=zstd: kcat writes uncompressed (idempotent), the leader stores zstd keeping producer id and sequences, readers get every record byte-exact, DescribeConfigs shows it', async () => {
    const topic = 'recompress-zstd';
    await createTopic(topic, { 'compression.type': 'zstd' });
    const lines = linesFor('rz');
    const input = lines.map((l) => `${l.key}\t${l.value}`).join('\n') + '\n';
    const p = await kcat(['-b', bootstrap, '-P', '-t', topic, '-K', '\t', '-z', 'none', '-X', 'enable.idempotence=true', '-X', 'linger.ms=50', '-X', 'batch.num.messages=400'], input, 120_000);
    expect(p.code, p.stderr).toBe(0);
    const log = broker.server.logManager.getLog(topic, 0)!;
    await waitFor(() => log.highWatermark === N, 15_000, 'high watermark');

    // Read from the segment files: every batch zstd, one producer id, its sequences following each other.
    const batches = storedBatches(broker.logDir, topic);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.filter((b) => b.compression !== CODEC_TYPE.zstd)).toEqual([]);
    expect(batches.reduce((n, b) => n + b.records, 0)).toBe(N);
    expect(new Set(batches.map((b) => b.producerId)).size).toBe(1);
    expect(batches[0]!.producerId).toBeGreaterThanOrEqual(0);
    batches.forEach((b, i) => expect(b.baseSequence, `batch at ${b.baseOffset}`).toBe(i === 0 ? 0 : batches[i - 1]!.baseSequence + batches[i - 1]!.records));

    const got = [];
    for await (const r of new Consumer(client, { maxWaitMs: 50 }).consume({ topic, untilEnd: true })) got.push(r);
    expectExact(got, lines);
    const c = await kcat(['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%k\t%s\n'], undefined, 120_000);
    expect(c.stdout.toString() === lines.map((l) => `${l.key}\t${l.value}\n`).join('')).toBe(true);

    const [described] = await new Admin(client).describeConfigs([{ type: 'topic', name: topic }]);
    expect(described!.error).toBeNull();
    expect(described!.entries.find((e) => e.name === 'compression.type')).toMatchObject({ value: 'zstd', source: 'DYNAMIC_TOPIC_CONFIG' });
  });

  it.each(['zstd', 'snappy'] as const)('compaction of a %s topic written by kcat keeps the latest value per key and the codec', async (codec) => {
    const topic = `compact-${codec}`;
    await createTopic(topic, { 'cleanup.policy': 'compact', 'segment.bytes': '4096' });
    const lines: Line[] = [];
    const latest = new Map<string, string>();
    for (let u = 0; u < 60; u++) {
      for (let k = 0; k < 40; k++) {
        lines.push({ key: `key${k}`, value: `value-${k}-${u}-${'p'.repeat(k)}` });
        latest.set(`key${k}`, `value-${k}-${u}-${'p'.repeat(k)}`);
      }
    }
    await kcatWrite(topic, codec, lines, ['-X', 'linger.ms=1', '-X', 'batch.num.messages=30']);
    const log = broker.server.logManager.getLog(topic, 0)!;
    await waitFor(() => log.highWatermark === lines.length, 10_000, 'high watermark');
    const before = storedBatches(broker.logDir, topic);
    expect(new Set(before.map((b) => b.segment)).size).toBeGreaterThan(5);
    expect(recordsWithCodec(before, codec)).toBeGreaterThan(lines.length - 10);

    await broker.server.logCleaner.cleanAll();
    const activeBase = log.segmentBaseOffsets().at(-1)!;
    const after = storedBatches(broker.logDir, topic);
    const cleaned = after.filter((b) => b.segment < activeBase);
    expect(cleaned.reduce((n, b) => n + b.records, 0)).toBeLessThanOrEqual(40);
    expect(cleaned.length).toBeGreaterThan(0);
    // The rewritten batches keep the codec of what they held.
    expect(cleaned.filter((b) => b.records > 0).every((b) => b.compression === CODEC_TYPE[codec])).toBe(true);

    const c = await kcat(['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%o\t%k\t%s\n']);
    expect(c.code, c.stderr).toBe(0);
    const read = c.stdout.toString().trim().split('\n').map((l) => l.split('\t'));
    expect(read.length).toBeLessThan(lines.length / 4);
    expect(new Map(read.map(([, k, v]) => [k!, v!]))).toEqual(latest);
  });
});
