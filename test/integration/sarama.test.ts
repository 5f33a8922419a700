import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sarama, saramaBinary } from '../support/sarama.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Go Sarama 1.22 (Debian) against one gregor broker: a producer and a consumer group at Kafka 2.1's protocol. */
describe('Sarama (Go) against one broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  beforeAll(async () => {
    saramaBinary(); // the first build takes a minute or two
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'num.partitions': '3' });
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
});
