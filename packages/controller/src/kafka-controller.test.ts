import { afterEach, describe, expect, it } from 'vitest';
import { CorruptDataError, ErrorCode, TimeoutError, silentLogger } from '@gregor/common';
import type { LeaderAndIsrRequest } from '@gregor/protocol';
import { FakeControllerZk, zkErrors } from './fake-controller-zk.js';
import { KafkaController, type ControllerConfig } from './kafka-controller.js';
import { RecordingControllerChannel } from './recording-controller-channel.js';

const config = (brokerId: number): ControllerConfig => ({
  brokerId,
  interBrokerListenerName: 'PLAINTEXT',
  uncleanLeaderElectionEnable: false,
  deleteTopicEnable: true,
  controllerSocketTimeoutMs: 1000,
  autoLeaderRebalanceEnable: false,
  leaderImbalanceCheckIntervalSeconds: 300,
  leaderImbalancePerBrokerPercentage: 10,
});

const timeout = () => new TimeoutError('ZooKeeper: no answer within 10000 ms');

async function until<T>(what: string, check: () => T, timeoutMs = 3000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const running: KafkaController[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.shutdown()));
});

/** Brokers 1..3 registered, topic `t` with the given replicas, the controller on broker 1 started and active. */
async function activeController(replicas: number[][], brokers = [1, 2, 3]) {
  const zk = new FakeControllerZk();
  const channel = new RecordingControllerChannel();
  for (const b of brokers) zk.registerBroker(b);
  zk.createTopic('t', replicas);
  const controller = new KafkaController(config(1), zk, silentLogger(), { channel: () => channel, zkRetryBackoffMs: { base: 5, max: 20 } });
  running.push(controller);
  controller.startup();
  await until('controller active with every partition online', () => controller.isActive && replicas.every((_r, p) => zk.state('t', p)));
  return { zk, channel, controller };
}

describe('KafkaController against a ZooKeeper that fails at chosen points', () => {
  it('retries a state write that hit a connection error until it is answered, instead of dropping the broker-failure event', async () => {
    const { zk, channel } = await activeController([[2, 1, 3]]);
    expect(zk.state('t', 0)).toMatchObject({ leader: 2, leaderEpoch: 0 });
    zk.fail('updatePartitionState', () => zkErrors.connectionLoss('/brokers/topics/t/partitions/0/state'), { times: 3 });
    zk.removeBroker(2);
    await until('broker 1 told it leads t-0', () => channel.leaderAndIsr(1).find((s) => s.leader === 1));
    expect(zk.state('t', 0)).toMatchObject({ leader: 1, leaderEpoch: 1, isr: [1, 3] });
    expect(zk.callCount('updatePartitionState')).toBe(4);
  });

  it('counts a state write whose answer was lost but which was applied as done (one new leader epoch, not two)', async () => {
    const { zk, channel } = await activeController([[2, 1, 3]]);
    zk.fail('updatePartitionState', timeout, { applied: true });
    zk.removeBroker(2);
    const told = await until('broker 1 told it leads t-0', () => channel.leaderAndIsr(1).find((s) => s.leader === 1));
    expect(told).toMatchObject({ leaderEpoch: 1, isr: [1, 3] });
    expect(zk.state('t', 0)).toMatchObject({ leader: 1, leaderEpoch: 1 });
  });

  it('re-arms a watch whose read failed: a broker change after the failed read is still seen', async () => {
    const { zk, channel, controller } = await activeController([[2, 1, 3]], [1, 2, 3]);
    zk.fail('getBrokerIds', () => zkErrors.connectionLoss('/brokers/ids'));
    zk.registerBroker(4); // BrokerChange: its read of /brokers/ids (which sets the watch) fails once
    await until('broker 4 known', () => controller.ctx.liveBrokers.has(4));
    zk.removeBroker(2); // seen only if the watch was set again
    await until('t-0 moved to broker 1', () => zk.state('t', 0)?.leader === 1);
    expect(channel.leaderAndIsr(1).at(-1)).toMatchObject({ leader: 1, isr: [1, 3] });
  });

  it('elects a new leader for every partition the dead broker led even when one state write fails', async () => {
    const { zk, channel } = await activeController([[2, 1, 3], [2, 3, 1], [2, 1, 3], [2, 3, 1]]);
    // Partition 1's write fails with a server-side error (not a connection error: no retry within the event).
    zk.fail('updatePartitionState', () => zkErrors.systemError('/brokers/topics/t/partitions/1/state'), { match: (args) => args[1] === 1 });
    zk.removeBroker(2);
    await until('partitions 0, 2 and 3 have new leaders', () => [0, 2, 3].every((p) => zk.state('t', p)?.leader !== 2));
    expect(zk.state('t', 0)?.leader).toBe(1);
    expect(zk.state('t', 2)?.leader).toBe(1);
    expect(zk.state('t', 3)?.leader).toBe(3);
    await until('the elected leaders were told', () => channel.leaderAndIsr(1).some((s) => s.partition === 0 && s.leader === 1) && channel.leaderAndIsr(3).some((s) => s.partition === 3 && s.leader === 3));
    // The failed partition is elected on the retry, not left with a dead leader.
    await until('partition 1 elected on the retry', () => zk.state('t', 1)?.leader === 3, 5000);
    await until('broker 3 told it leads t-1', () => channel.leaderAndIsr(3).some((s) => s.partition === 1 && s.leader === 3));
  });

  it('is not active until failover loading has finished', async () => {
    const zk = new FakeControllerZk();
    const channel = new RecordingControllerChannel();
    for (const b of [1, 2, 3]) zk.registerBroker(b);
    zk.createTopic('t', [[2, 1, 3]]);
    const controller = new KafkaController(config(1), zk, silentLogger(), { channel: () => channel });
    running.push(controller);
    const changes: boolean[] = [];
    controller.onActiveChange = (active) => changes.push(active);
    const loading = zk.hold('getTopics');
    controller.startup();
    await loading.entered;
    // Elected (it holds /controller), but the context is half loaded: it must neither act nor say it is controller.
    expect(zk.controller).toMatchObject({ brokerId: 1, owner: zk.sessionId });
    expect(controller.isActive).toBe(false);
    expect(changes).toEqual([]);
    const refused = await controller.preferredReplicaElection([{ topic: 't', partition: 0 }]);
    expect(refused.failed).toEqual([{ topic: 't', partition: 0 }]);
    loading.release();
    await until('active', () => controller.isActive);
    expect(changes).toEqual([true]);
    expect(controller.ctx.leadership.get('t-0')).toMatchObject({ leader: 2 });
  });

  it('resigns and frees /controller when failover loading fails, then takes over afresh', async () => {
    const zk = new FakeControllerZk();
    const channel = new RecordingControllerChannel();
    for (const b of [1, 2, 3]) zk.registerBroker(b);
    zk.createTopic('t', [[2, 1, 3]]);
    const controller = new KafkaController(config(1), zk, silentLogger(), { channel: () => channel });
    running.push(controller);
    const activeWith: number[] = [];
    controller.onActiveChange = (active) => active && activeWith.push(controller.ctx.leadership.size);
    zk.fail('getTopicAssignment', () => new CorruptDataError('/brokers/topics/t: not JSON'));
    controller.startup();
    await until('/controller deleted after the failed failover', () => zk.callCount('resignController') === 1);
    expect(controller.isActive).toBe(false);
    await until('active after a second election', () => controller.isActive, 5000);
    expect(zk.controllerEpoch).toBe(2);
    expect(activeWith).toEqual([1]); // it only ever acted with the whole context loaded
  });

  it('resolves an ambiguous /controller create (applied, answer lost) by the session owning the znode', async () => {
    const zk = new FakeControllerZk();
    const channel = new RecordingControllerChannel();
    for (const b of [1, 2, 3]) zk.registerBroker(b);
    zk.createTopic('t', [[2, 1, 3]]);
    const controller = new KafkaController(config(1), zk, silentLogger(), { channel: () => channel, zkRetryBackoffMs: { base: 5, max: 20 } });
    running.push(controller);
    zk.fail('tryElectController', timeout, { applied: true });
    controller.startup();
    await until('active', () => controller.isActive);
    expect(controller.epoch).toBe(1);
    expect(zk.controllerEpoch).toBe(1);
    expect(channel.leaderAndIsr(2).at(-1)).toMatchObject({ leader: 2 });
  });

  it('does not act on a /controller with its broker id owned by another (earlier) session; elects itself once it vanishes', async () => {
    const zk = new FakeControllerZk();
    const channel = new RecordingControllerChannel();
    for (const b of [1, 2, 3]) zk.registerBroker(b);
    zk.setController(1, 0x999n); // left by this broker's previous session
    const controller = new KafkaController(config(1), zk, silentLogger(), { channel: () => channel });
    running.push(controller);
    controller.startup();
    await until('describeController asked', () => zk.callCount('describeController') > 0);
    await new Promise((r) => setTimeout(r, 20));
    expect(controller.isActive).toBe(false);
    zk.deleteController(); // the old session expired
    await until('active', () => controller.isActive);
    expect(controller.epoch).toBe(2);
  });

  it('stops retrying when the session is lost, and shuts down promptly while ZooKeeper is unreachable', async () => {
    const { zk, controller } = await activeController([[2, 1, 3]]);
    zk.fail('getBrokerIds', () => zkErrors.connectionLoss('/brokers/ids'), { times: Number.POSITIVE_INFINITY });
    zk.removeBroker(2);
    await until('retrying', () => zk.callCount('getBrokerIds') >= 3);
    controller.onZkSessionLost();
    await until('resigned', () => !controller.isActive);
    const calls = zk.callCount('getBrokerIds');
    await new Promise((r) => setTimeout(r, 50));
    expect(zk.callCount('getBrokerIds')).toBe(calls);
    const started = Date.now();
    await controller.shutdown();
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('KafkaController and failed log dirs (KIP-112)', () => {
  it('moves leadership of replicas in a failed log dir to in-sync replicas on other brokers and takes them out of the ISR', async () => {
    const { zk, channel, controller } = await activeController([[2, 1, 3], [1, 2, 3], [3, 1, 2]]);
    // Broker 2's failed dir holds t-0 (it leads) and t-1 (it follows); t-2 is in a healthy dir.
    channel.respond = (brokerId, api, request) => {
      if (api !== 'LeaderAndIsr') return undefined;
      const states = (request as LeaderAndIsrRequest).topicStates ?? [];
      const partitionErrors = states.flatMap((t) =>
        t.partitionStates.map((p) => ({
          topicName: t.topicName,
          partitionIndex: p.partitionIndex,
          errorCode: brokerId === 2 && p.partitionIndex !== 2 ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE,
        })),
      );
      return { errorCode: ErrorCode.NONE, partitionErrors };
    };
    const notification = zk.addLogDirEvent(2);
    await until('t-0 led by broker 1', () => zk.state('t', 0)?.leader === 1);
    expect(zk.state('t', 0)).toMatchObject({ leader: 1, leaderEpoch: 1, isr: [1, 3] });
    await until('broker 2 out of the ISR of t-1', () => zk.state('t', 1)?.isr.join() === '1,3');
    expect(zk.state('t', 1)?.leader).toBe(1);
    expect(zk.state('t', 2)).toMatchObject({ leader: 3, isr: [3, 1, 2] });
    expect(zk.logDirEvents.has(notification)).toBe(false);
    expect(controller.ctx.replicasOnOfflineDirs.get(2)).toEqual(new Set(['t-0', 't-1']));
    await until('new leader told', () => channel.leaderAndIsr(1).some((s) => s.partition === 0 && s.leader === 1));
    // Every broker's metadata names the offline replicas (Metadata's offline_replicas).
    await until('offline replicas in UpdateMetadata', () => channel.updateMetadata(3).some((s) => s.partition === 0 && s.offlineReplicas.join() === '2'));
    // A restart of broker 2 (a new registration, its dirs repaired) brings its replicas back.
    channel.respond = () => undefined;
    zk.registerBroker(2);
    await until('broker 2 back online', () => !controller.ctx.replicasOnOfflineDirs.has(2));
    await until('metadata without offline replicas', () => channel.updateMetadata(1).at(-1)?.offlineReplicas.length === 0);
  });
});

describe('KafkaController time accounting', () => {
  it('reports where a slow event spent its time: ZooKeeper calls by method, and the rest', async () => {
    const { zk, controller } = await activeController([[2, 1, 3], [2, 3, 1]]);
    const profiles: { event: string; ms: number; zkMs: number; zkCalls: number; zk: Record<string, { calls: number; ms: number }> }[] = [];
    controller.onSlowEvent = (p) => profiles.push(p);
    const write = zk.hold('updatePartitionState');
    zk.removeBroker(2);
    await write.entered;
    await new Promise((r) => setTimeout(r, 150)); // one state write takes 150 ms
    write.release();
    await until('both partitions moved', () => zk.state('t', 0)?.leader === 1 && zk.state('t', 1)?.leader === 3);
    await until('the broker change reported', () => profiles.find((p) => p.event === 'BrokerChange'));
    const p = profiles.find((x) => x.event === 'BrokerChange')!;
    expect(p.zk.updatePartitionState).toMatchObject({ calls: 2 });
    expect(p.zk.updatePartitionState!.ms).toBeGreaterThanOrEqual(140);
    expect(p.zkMs).toBeGreaterThanOrEqual(p.zk.updatePartitionState!.ms);
    expect(p.ms).toBeGreaterThanOrEqual(140);
    expect(p.zkCalls).toBeGreaterThanOrEqual(3); // the broker list read, too
  });
});

describe('KafkaController pipelines partition state writes', () => {
  it('writes the new states of a dead broker\'s partitions concurrently, not one round trip after another (Kafka batches them)', async () => {
    const { zk } = await activeController([[2, 1, 3], [2, 3, 1], [2, 1, 3]]);
    const first = zk.hold('updatePartitionState');
    zk.removeBroker(2);
    await first.entered;
    // While the first write waits for ZooKeeper, the others are already on their way.
    await until('the other partitions written while the first is in flight', () => zk.callCount('updatePartitionState') === 3);
    first.release();
    await until('all moved', () => [0, 1, 2].every((p) => (zk.state('t', p)?.leader ?? 2) !== 2));
  });

  it('creates the state znodes of a new topic\'s partitions concurrently', async () => {
    const { zk } = await activeController([[1, 2, 3]]);
    const first = zk.hold('createPartitionState');
    zk.createTopic('u', [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2]]);
    await first.entered;
    await until('the other creates issued while the first is in flight', () => zk.callCount('createPartitionState') === 1 + 4); // t-0 was created before
    first.release();
    await until('u online', () => [0, 1, 2, 3].every((p) => zk.state('u', p)));
  });

  it('reads a topic\'s unclean.leader.election.enable once per election round, not once per partition', async () => {
    const { zk } = await activeController([[2, 1, 3], [2, 3, 1], [2, 1, 3], [2, 3, 1]]);
    const before = zk.callCount('getTopicConfig');
    zk.removeBroker(2);
    await until('all moved', () => [0, 1, 2, 3].every((p) => (zk.state('t', p)?.leader ?? 2) !== 2));
    expect(zk.callCount('getTopicConfig') - before).toBe(1);
  });
});
