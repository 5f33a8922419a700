import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection as PlatformaticConnection, alterPartitionReassignmentsV0, listPartitionReassignmentsV0 } from '@platformatic/kafka';
import { ErrorCode } from '@gregor/common';
import { Admin, Connection, KafkaClient } from '@gregor/client';
import {
  AlterPartitionReassignments,
  ElectLeaders,
  ListPartitionReassignments,
  Metadata,
  type ElectLeadersResponse,
  type ListPartitionReassignmentsResponse,
} from '@gregor/protocol';
import { topicPath } from '@gregor/zookeeper';
import { kcat } from '../support/kcat.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { VerifyingProducer } from '../support/verifying-producer.js';
import { waitFor } from '../support/in-process-cluster.js';

/**
 * KIP-455 reassignment and KIP-460 leader election through the Kafka APIs, against four broker
 * processes and a three-node ZooKeeper ensemble: AlterPartitionReassignments and
 * ListPartitionReassignments sent by @platformatic/kafka (an independent client's encoding), error
 * cases and ElectLeaders through gregor's Connection. A target broker is held with SIGSTOP so the
 * reassignment stays in progress long enough to be observed; a verifying producer writes with
 * acks=all throughout and every acknowledged value must be read back.
 */
const BROKERS = [1, 2, 3, 4];

describe('AlterPartitionReassignments / ListPartitionReassignments / ElectLeaders (processes)', () => {
  let cluster: ProcessCluster;
  let client: KafkaClient;
  const timeline: string[] = [];
  const t0 = Date.now();
  const note = (s: string) => timeline.push(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s ${s}`);
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    cluster = await ProcessCluster.start({
      brokers: BROKERS.length,
      zookeepers: 3,
      brokerProps: {
        'replica.lag.time.max.ms': '3000',
        'replica.fetch.wait.max.ms': '200',
        'replica.fetch.backoff.ms': '200',
        'controller.socket.timeout.ms': '5000',
        'auto.leader.rebalance.enable': 'false',
        // Longer than a paused target broker is held, so it keeps its registration (and its controller requests).
        'zookeeper.session.timeout.ms': '10000',
      },
    });
    client = new KafkaClient({ brokers: cluster.bootstrap() });
  }, 120_000);

  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await client?.close().catch(() => {});
    console.log(`reassignment-api timeline:\n${timeline.join('\n')}`);
    await cluster?.stop();
  });

  const controller = async () => waitFor(() => cluster.controllerId(), 30_000, 'a controller');
  const port = (id: number) => cluster.broker(id).opts.port;

  async function gregorConnection(id: number): Promise<Connection> {
    const c = new Connection({ host: '127.0.0.1', port: port(id), clientId: 'reassign-test', requestTimeoutMs: 30_000 });
    await c.connect();
    open.push(c);
    return c;
  }

  async function platformaticConnection(id: number): Promise<PlatformaticConnection> {
    const c = new PlatformaticConnection('platformatic-reassign-test');
    await c.connect('127.0.0.1', port(id));
    open.push(c);
    return c;
  }

  /** Roles for a move: ORS two brokers, TRS = [t1, t2] disjoint from it, t2 never the controller (it gets paused). */
  function roles(controllerId: number) {
    const t2 = Math.max(...BROKERS.filter((b) => b !== controllerId));
    const rest = BROKERS.filter((b) => b !== t2);
    return { origin: [rest[0]!, rest[1]!], t1: rest[2]!, t2 };
  }

  async function createTopic(name: string, replicas: number[]): Promise<void> {
    const [r] = await new Admin(client).createTopics([{ name, numPartitions: -1, replicationFactor: -1, replicaAssignment: { 0: replicas } }]);
    expect(r!.errorCode).toBe(ErrorCode.NONE);
    await waitFor(async () => (await cluster.partitionState(name, 0))?.isr.length === replicas.length, 20_000, `${name} online`);
  }

  async function assignmentJson(topic: string): Promise<unknown> {
    const node = await cluster.kafkaZk.zk.getData(topicPath(topic));
    return JSON.parse(node.data.toString('utf8'));
  }

  async function alter(c: PlatformaticConnection, topic: string, replicas: number[] | null) {
    // @platformatic/kafka types replicas as number[]; null (cancel) is encoded as a null compact array.
    return alterPartitionReassignmentsV0.api.async(c, 30_000, false, [{ name: topic, partitions: [{ partitionIndex: 0, replicas: replicas as number[] }] }]);
  }

  async function ongoing(c: PlatformaticConnection, topic?: string): Promise<ListPartitionReassignmentsResponse['topics']> {
    const r = await listPartitionReassignmentsV0.api.async(c, 30_000, topic ? [{ name: topic, partitionIndexes: [0] }] : null!);
    return r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ ...p })) }));
  }

  async function readAll(topic: string): Promise<Set<string>> {
    const r = await kcat(['-b', cluster.bootstrap(), '-C', '-t', topic, '-p', '0', '-e', '-q', '-f', '%s\n'], undefined, 120_000);
    expect(r.code).toBe(0);
    return new Set(r.stdout.toString().split('\n').filter((l) => l.length > 0));
  }

  const replicaDir = (broker: number, topic: string) => join(cluster.broker(broker).logDir, `${topic}-0`);

  it('answers errors as Kafka 2.4 does: per partition from the controller, top-level NOT_CONTROLLER elsewhere', async () => {
    await createTopic('errors', [1, 2]);
    const c = await controller();
    const conn = await gregorConnection(c);
    const r = await conn.send(AlterPartitionReassignments, {
      timeoutMs: 10_000,
      topics: [
        {
          name: 'errors',
          partitions: [{ partitionIndex: 0, replicas: [] }],
        },
        { name: 'no-such-topic', partitions: [{ partitionIndex: 0, replicas: [1] }] },
      ],
    });
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.responses).toEqual([
      { name: 'errors', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: 'The replica list is empty.' }] },
      { name: 'no-such-topic', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' }] },
    ]);
    for (const replicas of [[1, 1], [-1], [1, 99]]) {
      const bad = await conn.send(AlterPartitionReassignments, { timeoutMs: 10_000, topics: [{ name: 'errors', partitions: [{ partitionIndex: 0, replicas }] }] });
      expect(bad.responses[0]!.partitions[0]!.errorCode, JSON.stringify(replicas)).toBe(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    }
    const cancel = await conn.send(AlterPartitionReassignments, { timeoutMs: 10_000, topics: [{ name: 'errors', partitions: [{ partitionIndex: 0, replicas: null }] }] });
    expect(cancel.responses[0]!.partitions[0]).toEqual({ partitionIndex: 0, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: 'No partition reassignment is in progress.' });
    const idle = await conn.send(ListPartitionReassignments, { timeoutMs: 10_000, topics: [{ name: 'errors', partitionIndexes: [0, 7] }] });
    expect(idle).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] });
    expect((await assignmentJson('errors')) as object).toEqual({ version: 2, partitions: { '0': [1, 2] }, adding_replicas: {}, removing_replicas: {} });

    const other = await gregorConnection(BROKERS.find((b) => b !== c)!);
    const notAlter = await other.send(AlterPartitionReassignments, { timeoutMs: 10_000, topics: [{ name: 'errors', partitions: [{ partitionIndex: 0, replicas: [3, 4] }] }] });
    expect(notAlter).toMatchObject({ errorCode: ErrorCode.NOT_CONTROLLER, responses: [] });
    expect((await other.send(ListPartitionReassignments, { timeoutMs: 10_000, topics: null })).errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    const notElect = await other.send(ElectLeaders, { electionType: 0, topicPartitions: [{ topic: 'errors', partitionId: [0] }], timeoutMs: 10_000 });
    expect(notElect).toEqual({
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      replicaElectionResults: [{ topic: 'errors', partitionResult: [{ partitionId: 0, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: null }] }],
    });
  }, 60_000);

  it('moves an RF-2 partition to two other brokers while a producer writes: adding/removing while in progress, nothing lost', async () => {
    const c = await controller();
    const { origin, t1, t2 } = roles(c);
    await createTopic('moving', origin);
    const producer = new VerifyingProducer(cluster.bootstrap(), 'moving', 'mv');
    producer.start(300);
    try {
      await producer.waitForMoreAcks(300);
      // Hold one target replica so the reassignment stays in progress (resumed well within the ZooKeeper session timeout).
      cluster.broker(t2).pause();
      const pausedAt = Date.now();
      const pc = await platformaticConnection(c);
      const r = await alter(pc, 'moving', [t1, t2]);
      expect(r.errorCode).toBe(0);
      expect(r.responses).toEqual([{ name: 'moving', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null }] }]);
      note(`moving-0 ${origin} -> ${[t1, t2]} accepted (broker ${t2} paused)`);
      const expected = [{ name: 'moving', partitions: [{ partitionIndex: 0, replicas: [t1, t2, ...origin], addingReplicas: [t1, t2], removingReplicas: origin }] }];
      expect(await ongoing(pc)).toEqual(expected);
      expect(await ongoing(pc, 'moving')).toEqual(expected);
      expect(await assignmentJson('moving')).toEqual({
        version: 2,
        partitions: { '0': [t1, t2, ...origin] },
        adding_replicas: { '0': [t1, t2] },
        removing_replicas: { '0': origin },
      });
      // The unpaused target catches up; the move still waits for the paused one.
      await waitFor(async () => (await cluster.partitionState('moving', 0))?.isr.includes(t1), 15_000, `broker ${t1} in the ISR`);
      await new Promise((r) => setTimeout(r, 2000));
      expect(await ongoing(pc)).toEqual(expected);
      expect((await assignmentJson('moving')) as { adding_replicas: unknown }).toMatchObject({ adding_replicas: { '0': [t1, t2] } });
      cluster.broker(t2).resume();
      note(`broker ${t2} resumed after ${Date.now() - pausedAt} ms`);
      const resumedAt = Date.now();
      await waitFor(async () => (await ongoing(pc)).length === 0, 30_000, 'reassignment finished');
      note(`moving-0 finished ${Date.now() - resumedAt} ms after broker ${t2} resumed`);
      expect(await assignmentJson('moving')).toEqual({ version: 2, partitions: { '0': [t1, t2] }, adding_replicas: {}, removing_replicas: {} });
      const state = (await cluster.partitionState('moving', 0))!;
      expect([t1, t2]).toContain(state.leader);
      expect([...state.isr].sort()).toEqual([t1, t2].sort());
      for (const b of origin) await waitFor(() => !existsSync(replicaDir(b, 'moving')), 15_000, `old replica on broker ${b} deleted`);
      await producer.waitForMoreAcks(300);
    } finally {
      cluster.broker(t2).resume();
      await producer.stop();
    }
    const read = await readAll('moving');
    const missing = [...producer.acked].filter((v) => !read.has(v));
    note(`moving: acknowledged ${producer.acked.size}, read ${read.size}, missing ${missing.length}, producer errors ${JSON.stringify([...producer.errors])}`);
    expect(producer.acked.size).toBeGreaterThanOrEqual(600); // what its two waits guarantee
    expect(missing).toEqual([]);
  }, 120_000);

  it('cancelling (null replicas) returns to the original replicas and deletes the ones being added', async () => {
    const c = await controller();
    const { origin, t1, t2 } = roles(c);
    await createTopic('cancelled', origin);
    const lines = Array.from({ length: 200 }, (_, i) => `c${i}`);
    expect((await kcat(['-b', cluster.bootstrap(), '-P', '-t', 'cancelled', '-p', '0', '-X', 'acks=all'], lines.join('\n') + '\n')).code).toBe(0);
    cluster.broker(t2).pause();
    try {
      const pc = await platformaticConnection(c);
      expect((await alter(pc, 'cancelled', [t1, t2])).errorCode).toBe(0);
      // Broker t1 joins the ISR: the cancel has to take an in-sync replica out again.
      await waitFor(async () => (await cluster.partitionState('cancelled', 0))?.isr.includes(t1), 15_000, `broker ${t1} in the ISR`);
      const r = await alter(pc, 'cancelled', null);
      expect(r.responses).toEqual([{ name: 'cancelled', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null }] }]);
      expect(await ongoing(pc)).toEqual([]);
      expect(await assignmentJson('cancelled')).toEqual({ version: 2, partitions: { '0': origin }, adding_replicas: {}, removing_replicas: {} });
      const state = (await cluster.partitionState('cancelled', 0))!;
      expect(origin).toContain(state.leader);
      expect(state.isr.every((b) => origin.includes(b))).toBe(true);
      const again = await (await gregorConnection(c)).send(AlterPartitionReassignments, {
        timeoutMs: 10_000,
        topics: [{ name: 'cancelled', partitions: [{ partitionIndex: 0, replicas: null }] }],
      });
      expect(again.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
    } finally {
      cluster.broker(t2).resume();
    }
    for (const b of [t1, t2]) await waitFor(() => !existsSync(replicaDir(b, 'cancelled')), 20_000, `cancelled replica on broker ${b} deleted`);
    await waitFor(async () => (await cluster.partitionState('cancelled', 0))?.isr.length === 2, 15_000, 'original ISR');
    expect([...(await readAll('cancelled'))]).toEqual(lines);
  }, 90_000);

  it('an API reassignment takes its partition out of /admin/reassign_partitions', async () => {
    const c = await controller();
    const { origin, t1, t2 } = roles(c);
    await createTopic('legacy', origin);
    cluster.broker(t2).pause();
    try {
      // A znode reassignment in progress (t2 is paused), then the API moves the same partition elsewhere.
      await cluster.kafkaZk.zk.create(
        '/admin/reassign_partitions',
        Buffer.from(JSON.stringify({ version: 1, partitions: [{ topic: 'legacy', partition: 0, replicas: [t2, origin[0]] }] })),
        'persistent',
      );
      const pc = await platformaticConnection(c);
      await waitFor(async () => (await ongoing(pc)).length === 1, 10_000, 'znode reassignment started');
      expect(await assignmentJson('legacy')).toEqual({ version: 2, partitions: { '0': [t2, ...origin] }, adding_replicas: { '0': [t2] }, removing_replicas: { '0': [origin[1]] } });
      expect((await alter(pc, 'legacy', [t1, origin[0]])).errorCode).toBe(0);
      expect(await cluster.kafkaZk.zk.exists('/admin/reassign_partitions')).toBeNull();
      await waitFor(async () => (await ongoing(pc)).length === 0, 20_000, 'API reassignment finished');
      expect(await assignmentJson('legacy')).toEqual({ version: 2, partitions: { '0': [t1, origin[0]] }, adding_replicas: {}, removing_replicas: {} });
    } finally {
      cluster.broker(t2).resume();
    }
    // t2 was being added by the replaced reassignment: its replica is deleted.
    await waitFor(() => !existsSync(replicaDir(t2, 'legacy')), 20_000, `replaced replica on broker ${t2} deleted`);
  }, 90_000);

  it('ElectLeaders PREFERRED (v0, v1, v2) moves leadership back to the preferred replica', async () => {
    const c = await controller();
    const preferred = BROKERS.find((b) => b !== c)!;
    const replicas = [preferred, ...BROKERS.filter((b) => b !== preferred && b !== c).slice(0, 2)];
    await createTopic('preferred', replicas);
    const conn = await gregorConnection(c);
    for (const version of [0, 1, 2]) {
      // Leadership moves away with a controlled shutdown of the preferred replica; it comes back as a follower.
      await cluster.broker(preferred).stop();
      await waitFor(async () => (await cluster.partitionState('preferred', 0))!.leader !== preferred, 20_000, 'leader moved');
      await cluster.broker(preferred).start();
      await waitFor(async () => (await cluster.partitionState('preferred', 0))!.isr.includes(preferred), 30_000, 'preferred replica in the ISR');
      const startedAt = Date.now();
      const r = await conn.send(ElectLeaders, { electionType: 0, topicPartitions: [{ topic: 'preferred', partitionId: [0] }], timeoutMs: 30_000 }, { version });
      note(`ElectLeaders v${version} PREFERRED answered in ${Date.now() - startedAt} ms`);
      expect(r.replicaElectionResults).toEqual([{ topic: 'preferred', partitionResult: [{ partitionId: 0, errorCode: ErrorCode.NONE, errorMessage: null }] }]);
      expect((await cluster.partitionState('preferred', 0))!.leader).toBe(preferred);
      // The answer waited for this broker's metadata to show the new leader.
      const md = await conn.send(Metadata, { topics: [{ name: 'preferred' }] });
      expect(md.topics[0]!.partitions[0]!.leaderId).toBe(preferred);
    }
    const again = await conn.send(ElectLeaders, { electionType: 0, topicPartitions: [{ topic: 'preferred', partitionId: [0, 9] }], timeoutMs: 10_000 });
    expect(again.replicaElectionResults).toEqual([
      {
        topic: 'preferred',
        partitionResult: [
          { partitionId: 0, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: 'Leader election not needed for topic partition' },
          { partitionId: 9, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' },
        ],
      },
    ]);
    // All partitions (null): those that need no election are left out of the answer.
    const all: ElectLeadersResponse = await conn.send(ElectLeaders, { electionType: 0, topicPartitions: null, timeoutMs: 30_000 });
    expect(all.replicaElectionResults.flatMap((t) => t.partitionResult).some((p) => p.errorCode === ErrorCode.ELECTION_NOT_NEEDED)).toBe(false);
    expect(all.replicaElectionResults.find((t) => t.topic === 'preferred')).toBeUndefined();
  }, 240_000);

  it('ElectLeaders UNCLEAN elects a live replica outside the ISR when the ISR leader is dead', async () => {
    const c = await controller();
    const [leader, follower] = BROKERS.filter((b) => b !== c);
    await createTopic('unclean', [leader!, follower!]);
    const conn = await gregorConnection(c);
    const elect = (electionType: number) =>
      conn.send(ElectLeaders, { electionType, topicPartitions: [{ topic: 'unclean', partitionId: [0] }], timeoutMs: 20_000 });
    expect((await elect(1)).replicaElectionResults[0]!.partitionResult[0]!.errorCode).toBe(ErrorCode.ELECTION_NOT_NEEDED);
    // The follower dies and leaves the ISR; then the leader dies: the partition is offline with ISR [leader].
    await cluster.broker(follower!).kill();
    await waitFor(async () => sameMembers((await cluster.partitionState('unclean', 0))!.isr, [leader!]), 30_000, 'ISR shrunk to the leader');
    await cluster.broker(leader!).kill();
    await waitFor(async () => (await cluster.partitionState('unclean', 0))!.leader === -1, 30_000, 'partition offline');
    await cluster.broker(follower!).start();
    await new Promise((r) => setTimeout(r, 1000));
    const offline = (await cluster.partitionState('unclean', 0))!;
    expect(offline.leader).toBe(-1); // unclean.leader.election.enable is false: no automatic unclean election
    const pref = await elect(0);
    expect(pref.replicaElectionResults[0]!.partitionResult[0]!.errorCode).toBe(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE);
    const r = await elect(1);
    expect(r.replicaElectionResults).toEqual([{ topic: 'unclean', partitionResult: [{ partitionId: 0, errorCode: ErrorCode.NONE, errorMessage: null }] }]);
    const state = (await cluster.partitionState('unclean', 0))!;
    expect(state).toMatchObject({ leader: follower, isr: [follower] });
    expect(state.leaderEpoch).toBeGreaterThan(offline.leaderEpoch);
    note(`unclean-0 led by ${follower} after ElectLeaders UNCLEAN`);
    await cluster.broker(leader!).start();
    await waitFor(async () => (await cluster.partitionState('unclean', 0))!.isr.length === 2, 30_000, 'old leader back in the ISR');
  }, 240_000);

  it('a reassignment in progress survives kill -9 of the controller: the next one resumes it from the assignment znode', async () => {
    const c = await controller();
    const others = BROKERS.filter((b) => b !== c);
    const origin = [c, others[0]!];
    const [t1, t2] = [others[1]!, others[2]!];
    await createTopic('failover', origin);
    const producer = new VerifyingProducer(cluster.bootstrap(), 'failover', 'fo');
    producer.start(300);
    try {
      await producer.waitForMoreAcks(300);
      cluster.broker(t2).pause();
      const pc = await platformaticConnection(c);
      expect((await alter(pc, 'failover', [t1, t2])).errorCode).toBe(0);
      expect(await ongoing(pc)).toHaveLength(1);
      const killedAt = Date.now();
      await cluster.broker(c).kill();
      note(`killed controller ${c} with failover-0 ${origin} -> ${[t1, t2]} in progress (broker ${t2} paused)`);
      const next = await waitFor(async () => {
        const id = await cluster.controllerId();
        return id !== null && id !== c ? id : null;
      }, 30_000, 'a new controller');
      note(`broker ${next} is controller ${Date.now() - killedAt} ms after the kill`);
      const pc2 = await platformaticConnection(next);
      await waitFor(async () => (await ongoing(pc2)).length === 1, 20_000, 'new controller lists the reassignment');
      expect(await ongoing(pc2)).toEqual([
        { name: 'failover', partitions: [{ partitionIndex: 0, replicas: [t1, t2, ...origin], addingReplicas: [t1, t2], removingReplicas: origin }] },
      ]);
      cluster.broker(t2).resume();
      const resumedAt = Date.now();
      await waitFor(async () => (await ongoing(pc2)).length === 0, 60_000, 'reassignment finished under the new controller');
      note(`failover-0 finished ${Date.now() - resumedAt} ms after broker ${t2} resumed`);
      expect(await assignmentJson('failover')).toEqual({ version: 2, partitions: { '0': [t1, t2] }, adding_replicas: {}, removing_replicas: {} });
      const state = (await cluster.partitionState('failover', 0))!;
      expect([t1, t2]).toContain(state.leader);
      await producer.waitForMoreAcks(300, 60_000);
    } finally {
      cluster.broker(t2).resume();
      await producer.stop();
    }
    const read = await readAll('failover');
    const missing = [...producer.acked].filter((v) => !read.has(v));
    note(`failover: acknowledged ${producer.acked.size}, read ${read.size}, missing ${missing.length}, producer errors ${JSON.stringify([...producer.errors])}`);
    expect(producer.acked.size).toBeGreaterThanOrEqual(600); // the two waits above guarantee 300 + 300; none need come while the leader is down
    expect(missing).toEqual([]);
  }, 240_000);
});

function sameMembers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
