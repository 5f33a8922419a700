import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient, Producer } from '@gregor/client';
import { kcat } from '../support/kcat.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { waitFor } from '../support/in-process-cluster.js';

const TOPIC = 'sessions-rf3';
const PARTITIONS = 30;

interface SessionMetrics {
  sessions: number;
  partitionsCached: number;
  full: number;
  incremental: number;
  notFound: number;
}

/**
 * Followers on incremental fetch sessions (KIP-227) across three broker processes, seen through each
 * broker's Prometheus metrics: an RF-3 topic keeps replicating byte for byte through a follower kill -9
 * and restart (the restarted follower opens new sessions with a full fetch) and a leader change.
 */
describe('follower fetch sessions across three broker processes', () => {
  let cluster: ProcessCluster;
  let client: KafkaClient;
  const produced = new Map<number, string[]>(Array.from({ length: PARTITIONS }, (_, p) => [p, []]));
  let n = 0;

  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: 3,
      zookeepers: 1,
      httpAdmin: true,
      brokerProps: {
        'replica.lag.time.max.ms': '3000',
        'replica.fetch.wait.max.ms': '200',
        'replica.fetch.backoff.ms': '200',
        'controller.socket.timeout.ms': '5000',
        'auto.leader.rebalance.enable': 'false',
      },
    });
    client = new KafkaClient({ brokers: cluster.bootstrap() });
    const [r] = await new Admin(client).createTopics([{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3 }]);
    expect(r!.errorCode).toBe(0);
    await fullIsr();
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  async function fullIsr(timeoutMs = 30_000): Promise<void> {
    await waitFor(async () => {
      for (let p = 0; p < PARTITIONS; p++) if ((await cluster.partitionState(TOPIC, p))?.isr.length !== 3) return false;
      return true;
    }, timeoutMs, 'every replica in the ISR');
  }

  async function produce(count: number): Promise<void> {
    const producer = new Producer(client, { acks: -1 });
    const messages = Array.from({ length: count }, () => {
      const partition = n % PARTITIONS;
      const value = `${n}-${'r'.repeat(n % 23)}`;
      n++;
      produced.get(partition)!.push(value);
      return { value, partition };
    });
    await producer.send({ topic: TOPIC, messages });
  }

  async function metrics(id: number): Promise<SessionMetrics> {
    const text = await (await fetch(`http://127.0.0.1:${cluster.httpPort(id)}/metrics`)).text();
    const value = (name: string, labels = '') => {
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
    };
    const kind = (k: string) => value('gregor_fetch_requests_by_session_total', `fetcher="follower",kind="${k}"`);
    return {
      sessions: value('gregor_incremental_fetch_sessions'),
      partitionsCached: value('gregor_incremental_fetch_partitions_cached'),
      full: kind('full'),
      incremental: kind('incremental'),
      notFound: kind('session_id_not_found'),
    };
  }

  /** The bytes of every segment of a partition on one broker. */
  function logBytes(id: number, partition: number): Buffer {
    const dir = join(cluster.broker(id).logDir, `${TOPIC}-${partition}`);
    return Buffer.concat(readdirSync(dir).filter((f) => f.endsWith('.log')).sort().map((f) => readFileSync(join(dir, f))));
  }

  /** Every partition's log files are identical on the three brokers (so the followers have everything). */
  async function identicalOnDisk(timeoutMs = 30_000): Promise<void> {
    await waitFor(() => {
      for (let p = 0; p < PARTITIONS; p++) {
        const [a, b, c] = [1, 2, 3].map((id) => logBytes(id, p));
        if (a!.length === 0 || !a!.equals(b!) || !a!.equals(c!)) return false;
      }
      return true;
    }, timeoutMs, 'identical logs on every broker');
  }

  it('followers replicate over incremental sessions: one full fetch per follower and leader, then incremental ones', async () => {
    await produce(3000);
    await identicalOnDisk();
    const before = await Promise.all([1, 2, 3].map(metrics));
    await new Promise((r) => setTimeout(r, 2000)); // idle: empty incremental fetches every replica.fetch.wait.max.ms
    for (const id of [1, 2, 3]) {
      const m = await metrics(id);
      const b = before[id - 1]!;
      // The two other brokers follow its leaders, each over one session (normally exactly one full fetch each).
      expect(m.sessions, `broker ${id}`).toBeGreaterThanOrEqual(2);
      expect(m.partitionsCached).toBeGreaterThanOrEqual((2 * PARTITIONS) / 3);
      expect(m.full).toBeGreaterThanOrEqual(2);
      expect(m.incremental).toBeGreaterThan(m.full);
      expect(m.full).toBe(b.full);
      expect(m.incremental - b.incremental).toBeGreaterThanOrEqual(10); // two followers, 2 s, 200 ms long-polls
      expect(m.notFound).toBe(0);
    }
  });

  it('kill -9 and restart of a follower: it opens new sessions with a full fetch to each leader and catches up', async () => {
    const before = await Promise.all([1, 2].map(metrics));
    await cluster.broker(3).kill();
    await produce(1500); // acks=all with min.insync.replicas=1: the ISR shrinks to the two live brokers
    await cluster.broker(3).start();
    await fullIsr(60_000);
    await produce(1500);
    await identicalOnDisk();
    const after = await Promise.all([1, 2].map(metrics));
    for (const [i, m] of after.entries()) {
      // Broker 3's old session is left to expire (as in Kafka); its new fetcher made one full fetch.
      expect(m.full - before[i]!.full, `broker ${i + 1}`).toBeGreaterThanOrEqual(1);
      expect(m.incremental - before[i]!.incremental).toBeGreaterThan(m.full - before[i]!.full);
      expect(m.sessions).toBeGreaterThanOrEqual(2);
    }
  });

  it('a leader change: the remaining follower adds the new leader partitions to its session incrementally; the old leader rejoins', async () => {
    const leader = (await cluster.partitionState(TOPIC, 0))!.leader;
    const others = [1, 2, 3].filter((id) => id !== leader);
    const before = await Promise.all(others.map(metrics));
    await cluster.broker(leader).stop(); // controlled shutdown: its partitions move to the others
    await waitFor(async () => {
      for (let p = 0; p < PARTITIONS; p++) if ((await cluster.partitionState(TOPIC, p))?.leader === leader) return false;
      return true;
    }, 30_000, 'leadership moved');
    await produce(1500);
    const during = await Promise.all(others.map(metrics));
    for (const [i, m] of during.entries()) {
      // Each remaining broker now leads more partitions, and the other one's existing session took them in
      // with incremental fetches: more partitions cached. (The stopping broker may itself have fetched once
      // more over a new session while its controlled shutdown made it a follower, so full fetches may grow.)
      expect(m.partitionsCached, `broker ${others[i]}`).toBeGreaterThan(before[i]!.partitionsCached);
      expect(m.incremental).toBeGreaterThan(before[i]!.incremental);
    }
    await cluster.broker(leader).start();
    await fullIsr(60_000);
    await produce(1500);
    await identicalOnDisk();
    // Every record, read back through kcat from the current leaders, byte for byte and in order per partition.
    const c = await kcat(['-b', cluster.bootstrap(), '-C', '-t', TOPIC, '-o', 'beginning', '-e', '-q', '-f', '%p\t%s\n'], undefined, 120_000);
    expect(c.code, c.stderr).toBe(0);
    const got = new Map<number, string[]>();
    for (const line of c.stdout.toString().split('\n')) {
      if (!line) continue;
      const [p, v] = line.split('\t') as [string, string];
      got.set(Number(p), [...(got.get(Number(p)) ?? []), v]);
    }
    for (let p = 0; p < PARTITIONS; p++) expect(got.get(p) ?? []).toEqual(produced.get(p));
    for (const id of [1, 2, 3]) expect((await metrics(id)).notFound).toBe(0);
  });
});
