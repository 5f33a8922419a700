import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@gregor/common';
import { Admin, KafkaClient, KafkaOffsetStore, Producer, Reader, findGroupCoordinator, type Message } from '@gregor/client';
import { ProcessCluster } from '../support/process-cluster.js';
import { waitFor } from '../support/in-process-cluster.js';
import { KcatMember } from './kcat-member.js';

const SESSION_MS = 6000;
const TOPIC = 'fo';
const PARTITIONS = 6;
const TOTAL = 3000;

/** A Reader consuming with readMessage() (fetch + synchronous commit), recording what it committed. */
class CommittingReader {
  readonly reader: Reader;
  readonly committed: string[] = [];
  readonly fetched = new Set<string>();
  readonly #abort = new AbortController();
  readonly #loop: Promise<void>;

  constructor(bootstrap: string, groupId: string, topic: string) {
    const reader = new Reader({ brokers: bootstrap, groupId, topic, sessionTimeoutMs: SESSION_MS, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000, joinGroupBackoffMs: 500, ...(process.env.TEST_LOG ? { logger: createLogger(`reader-${groupId}`, { level: process.env.TEST_LOG }) } : {}) });
    this.reader = reader;
    this.#loop = (async () => {
      while (!this.#abort.signal.aborted) {
        let m: Message;
        try {
          m = await reader.fetchMessage(this.#abort.signal);
        } catch {
          return;
        }
        this.fetched.add(m.value!.toString());
        try {
          await reader.commitMessages(m);
          this.committed.push(`${m.partition}:${m.offset}`);
        } catch {
          // Not committed (rebalance, coordinator moving): it may be read again, which is allowed.
        }
      }
    })();
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
    await this.reader.close();
  }
}

describe('group coordinator under failures (processes)', () => {
  let cluster: ProcessCluster;
  let client: KafkaClient;
  const readers: CommittingReader[] = [];
  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: 3,
      zookeepers: 1,
      brokerProps: {
        'zookeeper.session.timeout.ms': String(SESSION_MS),
        'offsets.topic.num.partitions': '5',
        'offsets.topic.replication.factor': '3',
        'group.initial.rebalance.delay.ms': '300',
        'replica.lag.time.max.ms': '3000',
        'replica.fetch.wait.max.ms': '200',
        'auto.leader.rebalance.enable': 'false',
      },
    });
    client = new KafkaClient({ brokers: cluster.bootstrap() });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }]);
    expect(r!.errorCode).toBe(0);
    const producer = new Producer(client, { acks: -1 });
    for (let i = 0; i < TOTAL; i += 500) {
      await producer.send({ topic: TOPIC, messages: Array.from({ length: 500 }, (_, j) => ({ partition: (i + j) % PARTITIONS, value: `v${i + j}` })) });
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(readers.map((r) => r.close()));
    await client?.close();
    await cluster?.stop();
  });

  it('kill -9 of the coordinator: the group re-forms on the new one, commits are intact, nothing committed is read twice', async () => {
    readers.push(new CommittingReader(cluster.bootstrap(), 'g-fo', TOPIC), new CommittingReader(cluster.bootstrap(), 'g-fo', TOPIC));
    await waitFor(() => readers.reduce((n, r) => n + r.committed.length, 0) >= 800, 40_000, '800 committed');
    const coordinator = await findGroupCoordinator(client, 'g-fo');
    await cluster.broker(coordinator).kill();
    await waitFor(() => new Set(readers.flatMap((r) => [...r.fetched])).size === TOTAL, 60_000, `all ${TOTAL} read after the coordinator failed`).catch((e) => {
      const all = new Set(readers.flatMap((r) => [...r.fetched]));
      const missing = new Map<number, number>();
      for (let i = 0; i < TOTAL; i++) if (!all.has(`v${i}`)) missing.set(i % PARTITIONS, (missing.get(i % PARTITIONS) ?? 0) + 1);
      console.log('missing by partition', Object.fromEntries(missing));
      console.log(readers.map((r) => ({ fetched: r.fetched.size, committed: r.committed.length, assignment: r.reader.assignment(), generation: r.reader.generationId, stats: r.reader.stats })));
      throw e;
    });
    const newCoordinator = await waitFor(async () => {
      const c = await findGroupCoordinator(client, 'g-fo').catch(() => -1);
      return c !== coordinator && c > 0 ? c : null;
    }, 30_000, 'new coordinator');
    expect(newCoordinator).not.toBe(coordinator);
    // Every offset was committed once: nothing committed came back to a reader.
    const committed = readers.flatMap((r) => r.committed);
    expect(new Set(committed).size).toBe(committed.length);
    // The committed offsets reached the end of every partition, as the new coordinator serves them.
    const store = new KafkaOffsetStore(client, 'g-fo');
    await waitFor(async () => {
      const offsets = await store.fetch(Array.from({ length: PARTITIONS }, (_, p) => ({ topic: TOPIC, partition: p }))).catch(() => null);
      return offsets && [...offsets.values()].every((o) => o.offset === TOTAL / PARTITIONS);
    }, 30_000, 'committed offsets at the end');
    await waitFor(() => readers.every((r) => r.reader.assignment().length > 0), 30_000, 'both readers assigned');
    await cluster.broker(coordinator).start();
  }, 150_000);

  it('killing and restarting a broker that is not the coordinator causes no rebalance', async () => {
    const coordinator = await findGroupCoordinator(client, 'g-fo');
    const victim = [1, 2, 3].find((id) => id !== coordinator)!;
    await waitFor(() => readers.every((r) => r.reader.generationId > 0), 20_000, 'stable readers');
    const generations = readers.map((r) => r.reader.generationId);
    await cluster.broker(victim).kill();
    await new Promise((r) => setTimeout(r, SESSION_MS + 2000));
    await cluster.broker(victim).start();
    await new Promise((r) => setTimeout(r, 2000));
    expect(readers.map((r) => r.reader.generationId)).toEqual(generations);
    expect(await findGroupCoordinator(client, 'g-fo')).toBe(coordinator);
  }, 60_000);

  it('a killed member (kcat, SIGKILL) loses its partitions to the others within 2 x session timeout + 5 s', async () => {
    await Promise.all(readers.splice(0).map((r) => r.close()));
    const survivor = new CommittingReader(cluster.bootstrap(), 'g-kill', TOPIC);
    readers.push(survivor);
    const member = new KcatMember(cluster.bootstrap(), 'g-kill', TOPIC);
    await waitFor(() => member.assigned && member.assigned.length > 0 && survivor.reader.assignment().length > 0 && survivor.reader.assignment().length < PARTITIONS, 30_000, 'two-member group');
    const killedAt = Date.now();
    await member.kill();
    await waitFor(() => survivor.reader.assignment().length === PARTITIONS, 2 * SESSION_MS + 5000, 'partitions moved');
    expect(Date.now() - killedAt).toBeLessThan(2 * SESSION_MS + 5000);
  }, 60_000);
});
