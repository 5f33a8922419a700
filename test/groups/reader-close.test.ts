import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer, Reader } from '@gregor/client';
import { ProcessCluster } from '../support/process-cluster.js';

/**
 * Reader.close(timeout), as Kafka's consumer close(Duration): a coordinator that stopped answering (its process
 * SIGSTOPped) does not hold close() for a request timeout per step; close() gives up at its deadline, says so, and
 * closes its connections.
 */
describe('Reader.close({ timeoutMs })', () => {
  let cluster: ProcessCluster;
  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: 1,
      zookeepers: 1,
      brokerProps: { 'offsets.topic.num.partitions': '1', 'offsets.topic.replication.factor': '1', 'group.initial.rebalance.delay.ms': '0' },
    });
  }, 120_000);
  afterAll(async () => {
    cluster?.broker(1).resume();
    await cluster?.stop();
  }, 60_000);

  it('gives up flushing commits and leaving the group at its deadline when the coordinator stops answering', async () => {
    const bootstrap = cluster.broker(1).bootstrap;
    const client = new KafkaClient({ brokers: bootstrap });
    try {
      const [created] = await new Admin(client).createTopics([{ name: 'closing', numPartitions: 1, replicationFactor: 1 }]);
      expect(created!.errorCode).toBe(0);
      await new Producer(client).send({ topic: 'closing', messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) });

      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
      // Commits merged for a minute: the ones below are still pending when close() comes.
      const reader = new Reader({ brokers: bootstrap, groupId: 'g-close', topic: 'closing', commitIntervalMs: 60_000, sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, logger });
      let last = await reader.fetchMessage();
      for (let i = 1; i < 10; i++) last = await reader.fetchMessage();
      expect(last.value!.toString()).toBe('v9');
      await reader.commitMessages(last);

      cluster.broker(1).pause();
      const started = Date.now();
      await reader.close({ timeoutMs: 1500 });
      const took = Date.now() - started;
      cluster.broker(1).resume();

      // Without the deadline the OffsetCommit alone waits out the 30 s request timeout.
      expect(took).toBeGreaterThanOrEqual(1400);
      expect(took).toBeLessThan(8000);
      expect(lines.some((l) => l.includes('close() timed out'))).toBe(true);
      await expect(reader.fetchMessage()).rejects.toThrow(/closed/);
      // (The OffsetCommit close() sent sat in the stopped broker's socket buffer, so it may still be applied once the
      // broker runs again, as with Kafka: close() only stops waiting for it.)
    } finally {
      cluster.broker(1).resume();
      await client.close();
    }
  }, 90_000);
});
