import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Reader } from '@gregor/client';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const KEYS = 40;
const UPDATES = 100;

/** Log compaction on a real broker: a compacted topic shrinks to one record per key; readers see the latest values. */
describe('log compaction (cleanup.policy=compact)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.num.partitions': '2', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '100' });
  });
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('many updates per key shrink to the latest one, and kcat and the Reader read the latest value of every key', async () => {
    const client = new KafkaClient({ brokers: broker.bootstrap });
    const [created] = await new Admin(client).createTopics([{ name: 'kv', numPartitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'compact', 'segment.bytes': '4096' } }]);
    await client.close();
    expect(created!.errorCode).toBe(0);
    const lines: string[] = [];
    const latest = new Map<string, string>();
    for (let u = 0; u < UPDATES; u++) {
      for (let k = 0; k < KEYS; k++) {
        lines.push(`key${k}:value-${k}-${u}`);
        latest.set(`key${k}`, `value-${k}-${u}`);
      }
    }
    const p = await kcat(['-b', broker.bootstrap, '-P', '-t', 'kv', '-K', ':', '-X', 'linger.ms=1', '-X', 'batch.num.messages=20'], lines.join('\n') + '\n');
    expect(p.code, p.stderr).toBe(0);

    const log = broker.server.logManager.getLog('kv', 0)!;
    await new Promise((r) => setTimeout(r, 200)); // HW catches up (acks=all of a single replica)
    const sizeBefore = log.sizeInBytes();
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(5);
    await broker.server.logCleaner.cleanAll();
    expect(log.sizeInBytes()).toBeLessThan(sizeBefore / 4);
    const activeBase = log.segmentBaseOffsets().at(-1)!;

    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', 'kv', '-o', 'beginning', '-e', '-q', '-f', '%o %k %s\\n']);
    expect(c.code, c.stderr).toBe(0);
    const read = c.stdout.toString().trim().split('\n').map((l) => l.split(' '));
    expect(read.length).toBeLessThan((KEYS * UPDATES) / 4);
    const cleanedKeys = read.filter(([o]) => Number(o) < activeBase).map(([, k]) => k);
    expect(new Set(cleanedKeys).size).toBe(cleanedKeys.length);
    expect(new Map(read.map(([, k, v]) => [k!, v!]))).toEqual(latest);
    expect(Number(read.at(-1)![0])).toBe(KEYS * UPDATES - 1);

    const reader = new Reader({ brokers: broker.bootstrap, groupId: 'g-compact', topic: 'kv', sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 });
    const seen = new Map<string, string>();
    try {
      let lastOffset = -1;
      while (lastOffset < KEYS * UPDATES - 1) {
        const m = await reader.readMessage(AbortSignal.timeout(20_000));
        seen.set(m.key!.toString(), m.value!.toString());
        lastOffset = m.offset;
      }
    } finally {
      await reader.close();
    }
    expect(seen).toEqual(latest);
  }, 60_000);
});
