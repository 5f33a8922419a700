import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const run = promisify(execFile);
const SCRIPT = new URL('./fixtures/confluent_clients.py', import.meta.url).pathname;

/** python3-confluent-kafka 1.7 (Debian; librdkafka 2.0.2 inside) against one broker: admin, producer, group consumer, offset reset. */
describe('python3-confluent-kafka against one broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.num.partitions': '3', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '0' });
  });
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('create_topics + create_partitions, a producer with delivery reports, a committing group, list_groups, and an out-of-range reset', async () => {
    const { stdout } = await run('/usr/bin/python3', [SCRIPT, broker.bootstrap, 'py-clients', 'py-group'], { timeout: 120_000 });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out.partitions).toEqual([0, 1, 2]);
    expect(out.acked).toBe(30);
    expect(out.group_read).toEqual(Array.from({ length: 30 }, (_, i) => `v${i}`));
    expect(out.committed_total).toBe(30);
    expect(out.groups).toContain('py-group');
    expect(out.group_protocol_type).toBe('consumer');
    const n = out.partition0_count as number;
    expect(n).toBeGreaterThan(0);
    expect(out.oor_offsets).toEqual(Array.from({ length: n }, (_, i) => i));
  }, 150_000);
});
