import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEvent } from '@gregor/broker';
import { CODEC_TYPE, storedBatches } from '../support/codec-topics.js';
import { sarama, saramaBinary } from '../support/sarama.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * Go Sarama 1.22 (Debian) against one gregor broker: a producer and a consumer group at Kafka 2.1's protocol, and
 * a producer and partition consumers with Sarama's default Version (0.8.2: Metadata v0, Produce v0 and Fetch v0
 * with message format v0, ListOffsets v0) and with V0_10_0_0 (Produce v2 and Fetch v2, message format v1), which
 * gregor serves by up- and down-conversion.
 */
describe('Sarama (Go) against one broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  beforeAll(async () => {
    saramaBinary(); // the first build takes a minute or two
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'num.partitions': '3', 'offsets.topic.replication.factor': '1' });
  }, 600_000);
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  const expected = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `k${i % 7}:${prefix}${i}`).sort();
  const values = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => l.split(':').slice(2).join(':'))
      .sort();

  it('V2_1_0_0: a producer (acks=all, gzip) and a consumer group read every record once', async () => {
    const p = await sarama('produce', { brokers: broker.bootstrap, topic: 'sarama-21', n: 500, version: '2.1.0', compression: 'gzip', prefix: 'a' });
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout.trim()).toBe('acked 500');
    const g = await sarama('group', { brokers: broker.bootstrap, topic: 'sarama-21', group: 'sarama-g', n: 500, version: '2.1.0', timeout: '60s' });
    expect(g.code, g.stderr).toBe(0);
    expect(values(g.stdout)).toEqual(expected(500, 'a'));
  });

  it('V2_1_0_0: a partition consumer reads from the oldest offset', async () => {
    const c = await sarama('consume', { brokers: broker.bootstrap, topic: 'sarama-21', n: 500, version: '2.1.0', timeout: '60s' });
    expect(c.code, c.stderr).toBe(0);
    expect(values(c.stdout)).toEqual(expected(500, 'a'));
  });

  it.each([
    ['default', 'none'],
    ['default', 'gzip'],
    ['default', 'snappy'],
    ['0.10.0.0', 'none'],
    ['0.10.0.0', 'gzip'],
    ['0.10.0.0', 'snappy'],
    ['0.10.0.0', 'lz4'],
  ] as const)('Version %s: a %s producer and a partition consumer at the old Produce/Fetch versions', async (version, compression) => {
    // default (0.8.2): Produce v0 and Fetch v0, message format v0; 0.10.0.0: Produce v2 and Fetch v2, format v1.
    const topic = `sarama-${version.replaceAll('.', '-')}-${compression}`;
    const seen: RequestEvent[] = [];
    const observe = (e: RequestEvent) => void seen.push(e);
    broker.server.apis.requestObservers.add(observe);
    try {
      const p = await sarama('produce', { brokers: broker.bootstrap, topic, n: 300, compression, prefix: compression, version });
      expect(p.code, p.stderr).toBe(0);
      expect(p.stderr).toContain(`sarama version ${version === 'default' ? '0.8.2' : version}`);
      expect(p.stdout.trim()).toBe('acked 300');
      const batches = [0, 1, 2].flatMap((partition) => storedBatches(broker.logDir, topic, partition));
      expect(batches.reduce((n, b) => n + b.records, 0)).toBe(300);
      expect(batches.every((b) => b.compression === CODEC_TYPE[compression])).toBe(true);
      // Read back at the same Version (down-converted to its magic).
      const c = await sarama('consume', { brokers: broker.bootstrap, topic, n: 300, timeout: '60s', version });
      expect(c.code, c.stderr).toBe(0);
      expect(values(c.stdout)).toEqual(expected(300, compression));
      // Each partition's offsets are 0..n-1 with nothing skipped or repeated.
      const byPartition = new Map<string, number[]>();
      for (const line of c.stdout.trim().split('\n')) {
        const [partition, offset] = line.split(':');
        byPartition.set(partition!, [...(byPartition.get(partition!) ?? []), Number(offset)]);
      }
      for (const offsets of byPartition.values()) expect(offsets.sort((a, b) => a - b)).toEqual(offsets.map((_, i) => i));
    } finally {
      broker.server.apis.requestObservers.delete(observe);
    }
    const old = version === 'default' ? 0 : 2;
    expect(new Set(seen.filter((e) => e.api === 'Produce').map((e) => e.apiVersion))).toEqual(new Set([old]));
    expect(new Set(seen.filter((e) => e.api === 'Fetch').map((e) => e.apiVersion))).toEqual(new Set([old]));
  });

  it('default Version (Fetch v0) reads what the V2_1_0_0 producer wrote (gzip RecordBatch v2, down-converted)', async () => {
    const c = await sarama('consume', { brokers: broker.bootstrap, topic: 'sarama-21', n: 500, timeout: '60s' });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr).toContain('sarama version 0.8.2');
    expect(values(c.stdout)).toEqual(expected(500, 'a'));
  });

  it('V2_1_0_0 reads what the default Version producer wrote (up-converted)', async () => {
    const c = await sarama('consume', { brokers: broker.bootstrap, topic: 'sarama-default-gzip', n: 300, version: '2.1.0', timeout: '60s' });
    expect(c.code, c.stderr).toBe(0);
    expect(values(c.stdout)).toEqual(expected(300, 'gzip'));
  });
});
