import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { startTestZooKeeper, type TestZooKeeper } from './test-zookeeper.js';
import { KafkaZkClient } from './kafka-zk-client.js';
import { ControllerMovedError, TopicExistsError } from './kafka-zk-errors.js';
import { ZkError, ZkErrorCode } from './zk-errors.js';
import type { ZkWatchEvent } from './zk-types.js';

let zk: TestZooKeeper;
let kafka: KafkaZkClient;
beforeAll(async () => {
  zk = await startTestZooKeeper();
  kafka = new KafkaZkClient(await zk.client());
  await kafka.ensurePersistentPaths();
});
afterAll(async () => {
  await zk?.stop();
});

const endpoint = (port: number) => ({ listener: 'PLAINTEXT', host: '127.0.0.1', port, securityProtocol: 'PLAINTEXT' });

describe('KafkaZkClient', () => {
  it('ensures persistent paths and one cluster id', async () => {
    await kafka.ensurePersistentPaths(); // idempotent
    for (const path of ['/consumers', '/brokers/ids', '/brokers/topics', '/config/topics', '/admin/delete_topics', '/isr_change_notification']) {
      expect(await kafka.zk.exists(path)).not.toBeNull();
    }
    const id = await kafka.getOrCreateClusterId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const other = new KafkaZkClient(await zk.client());
    expect(await other.getOrCreateClusterId()).toBe(id);
    expect(JSON.parse((await kafka.zk.getData('/cluster/id')).data.toString())).toEqual({ version: '1', id });
  });

  it('registers brokers as ephemerals with Kafka JSON; epoch = czxid; a stale node of a dead session is waited for', async () => {
    const c1 = await zk.client();
    const b1 = new KafkaZkClient(c1);
    const epoch = await b1.registerBroker({ brokerId: 1, endpoints: [endpoint(9092)], jmxPort: -1, rack: null, timestamp: 1588888888888 });
    expect((await kafka.zk.getData('/brokers/ids/1')).data.toString()).toBe(
      '{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://127.0.0.1:9092"],"jmx_port":-1,"host":"127.0.0.1","timestamp":"1588888888888","port":9092,"version":4}',
    );
    expect((await kafka.zk.exists('/brokers/ids/1'))!.ephemeralOwner).toBe(c1.sessionIdValue);
    const b2 = new KafkaZkClient(await zk.client());
    await b2.registerBroker({ brokerId: 2, endpoints: [endpoint(9093)], jmxPort: -1, rack: null });
    expect((await kafka.getAllBrokers()).map((b) => [b.brokerId, b.endpoints[0]!.port])).toEqual([
      [1, 9092],
      [2, 9093],
    ]);
    expect((await kafka.getBroker(1))!.epoch).toBe(epoch);

    // broker 1 "crashes": its session is dropped without closing; a new session waits for the old node to expire
    c1.abandon();
    const again = new KafkaZkClient(await zk.client());
    const t0 = Date.now();
    const newEpoch = await again.registerBroker({ brokerId: 1, endpoints: [endpoint(9094)], jmxPort: -1, rack: null }, { waitForStaleMs: 10_000 });
    expect(Date.now() - t0).toBeGreaterThan(500);
    expect(newEpoch).toBeGreaterThan(epoch);
    expect((await kafka.getBroker(1))!.endpoints[0]!.port).toBe(9094);
    // a live holder is not displaced
    await expect(b2.registerBroker({ brokerId: 1, endpoints: [endpoint(1)], jmxPort: -1, rack: null }, { waitForStaleMs: 300 })).rejects.toThrow(/already registered/);
  });

  it('controller election: one wins, the loser sees it; the winner leaves → the other wins with a higher epoch', async () => {
    const c1 = await zk.client();
    const c2 = await zk.client();
    const k1 = new KafkaZkClient(c1);
    const k2 = new KafkaZkClient(c2);
    const [r1, r2] = await Promise.all([k1.tryElectController(1), k2.tryElectController(2)]);
    const winner = r1.elected ? r1 : r2;
    const loser = r1.elected ? r2 : r1;
    expect([r1.elected, r2.elected].filter(Boolean)).toHaveLength(1);
    expect(loser.controllerId).toBe(winner.controllerId);
    expect(loser.epoch).toBe(winner.epoch);
    expect(await kafka.getControllerId()).toBe(winner.controllerId);
    expect(await kafka.getControllerEpoch()).toEqual({ epoch: winner.epoch, zkVersion: winner.epochZkVersion });

    const events: ZkWatchEvent[] = [];
    await kafka.getControllerId((e) => void events.push(e));
    const [winnerClient, loserKafka, loserId] = winner === r1 ? [c1, k2, 2] : [c2, k1, 1];
    await winnerClient.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([{ type: 'deleted', path: '/controller' }]);
    const second = await loserKafka.tryElectController(loserId);
    expect(second).toMatchObject({ elected: true, controllerId: loserId, epoch: winner.epoch + 1 });
    expect(second.epochZkVersion).toBe(winner.epochZkVersion + 1);
    // asking again while controller is idempotent
    expect(await loserKafka.tryElectController(loserId)).toMatchObject({ elected: true, epoch: winner.epoch + 1 });
    await loserKafka.resignController(loserId);
    expect(await kafka.getControllerId()).toBeNull();
  });

  it('topics: create (typed TOPIC_ALREADY_EXISTS), assignment, config, partition states fenced by controller epoch', async () => {
    const election = await kafka.tryElectController(9);
    expect(election.elected).toBe(true);
    await kafka.createTopic('orders', new Map([[0, [1, 2]], [1, [2, 1]]]), { 'retention.ms': '1000' });
    const error = await kafka.createTopic('orders', new Map([[0, [1]]])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TopicExistsError);
    expect((error as TopicExistsError).code).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
    expect(await kafka.getAllTopics()).toContain('orders');
    expect(await kafka.getTopicConfig('orders')).toEqual({ 'retention.ms': '1000' });
    const { assignment, zkVersion } = (await kafka.getTopicAssignment('orders'))!;
    expect(assignment.partitions.get(1)).toEqual([2, 1]);
    expect(await kafka.setTopicAssignment('orders', new Map([[0, [1, 2]], [1, [2, 1]], [2, [1, 2]]]), zkVersion, election.epochZkVersion)).toBe(zkVersion + 1);
    await expect(kafka.setTopicAssignment('orders', new Map(), zkVersion)).rejects.toMatchObject({ zkCode: ZkErrorCode.BAD_VERSION });

    const state = { leader: 1, leaderEpoch: 0, isr: [1, 2], controllerEpoch: election.epoch };
    const created = await kafka.createPartitionStates(
      [
        { topic: 'orders', partition: 0, state },
        { topic: 'orders', partition: 1, state: { ...state, leader: 2, isr: [2, 1] } },
      ],
      election.epochZkVersion,
    );
    expect(created.map((r) => [r.partition, r.zkVersion, r.error])).toEqual([
      [0, 0, null],
      [1, 0, null],
    ]);
    expect(await kafka.getPartitionIds('orders')).toEqual([0, 1]);
    expect(await kafka.getPartitionState('orders', 0)).toEqual({ state, zkVersion: 0 });
    expect(await kafka.getPartitionState('orders', 7)).toBeNull();

    // the leader shrinks the ISR (not fenced on the controller epoch, only on the zkVersion)
    const v1 = await kafka.updatePartitionState('orders', 0, { ...state, isr: [1] }, 0);
    expect(v1).toBe(1);
    await expect(kafka.updatePartitionState('orders', 0, state, 0)).rejects.toMatchObject({ zkCode: ZkErrorCode.BAD_VERSION });
    // the controller elects a new leader, fenced on its epoch zkVersion
    const v2 = await kafka.updatePartitionState('orders', 0, { ...state, leader: 2, leaderEpoch: 1, isr: [2] }, v1, election.epochZkVersion);
    expect(v2).toBe(2);
  });

  it('a zombie controller cannot write partition state once another controller bumped the epoch', async () => {
    const zombie = new KafkaZkClient(await zk.client());
    const successor = new KafkaZkClient(await zk.client());
    await kafka.resignController(9);
    const old = await zombie.tryElectController(10);
    expect(old.elected).toBe(true);
    // the zombie's session "hangs"; its /controller goes away and the successor wins a higher epoch
    await zombie.zk.delete('/controller');
    const fresh = await successor.tryElectController(11);
    expect(fresh).toMatchObject({ elected: true, epoch: old.epoch + 1 });

    const current = (await zombie.getPartitionState('orders', 1))!;
    const write = zombie.updatePartitionState('orders', 1, { ...current.state, leader: 1, leaderEpoch: 5 }, current.zkVersion, old.epochZkVersion);
    await expect(write).rejects.toBeInstanceOf(ControllerMovedError);
    await expect(write).rejects.toMatchObject({ code: ErrorCode.NOT_CONTROLLER });
    expect(await zombie.getPartitionState('orders', 1)).toEqual(current); // untouched
    const creates = await zombie.createPartitionStates([{ topic: 'orders', partition: 2, state: current.state }], old.epochZkVersion);
    expect(creates[0]!.error).toBeInstanceOf(ControllerMovedError);
    expect(await zombie.getPartitionState('orders', 2)).toBeNull();
    // the real controller's write goes through
    expect(await successor.updatePartitionState('orders', 1, { ...current.state, leaderEpoch: 1 }, current.zkVersion, fresh.epochZkVersion)).toBe(current.zkVersion + 1);
  });

  it('a stale controller cannot delete: topic znodes, deletion markers, notifications and admin requests stay', async () => {
    const stale = (await kafka.getControllerEpoch())!;
    await kafka.createTopic('fenced', new Map([[0, [1]]]));
    await kafka.markTopicForDeletion('fenced');
    await kafka.markTopicForDeletion('marker-only');
    const isr = await kafka.createIsrChangeNotification([{ topic: 'fenced', partition: 0 }]);
    const logDir = await kafka.propagateLogDirEvent(3);
    await kafka.createPreferredReplicaElection([{ topic: 'fenced', partition: 0 }]);
    await kafka.createPartitionReassignment([{ topic: 'fenced', partition: 0, replicas: [2] }]);
    await expect(kafka.createPartitionReassignment([])).rejects.toMatchObject({ zkCode: ZkErrorCode.NODE_EXISTS });

    // another broker becomes controller: the epoch's zkVersion moves on
    await kafka.zk.deleteRecursive('/controller');
    const successor = new KafkaZkClient(await zk.client());
    const fresh = await successor.tryElectController(31);
    expect(fresh).toMatchObject({ elected: true, epoch: stale.epoch + 1, epochZkVersion: stale.zkVersion + 1 });

    const v = stale.zkVersion;
    const isrName = isr.split('/').pop()!;
    const logDirName = logDir.split('/').pop()!;
    for (const attempt of [
      () => kafka.deleteTopicZnodes('fenced', v),
      () => kafka.deleteTopicDeletionMarker('marker-only', v),
      () => kafka.deleteIsrChangeNotifications([isrName], v),
      () => kafka.deleteLogDirEventNotifications([logDirName], v),
      () => kafka.deletePreferredReplicaElection(v),
      () => kafka.setPartitionReassignment([], v),
      () => kafka.setPartitionReassignment([{ topic: 'fenced', partition: 0, replicas: [3] }], v),
    ]) {
      await expect(attempt()).rejects.toBeInstanceOf(ControllerMovedError);
    }
    expect(await kafka.getTopicAssignment('fenced')).not.toBeNull();
    expect(await kafka.getPartitionIds('fenced')).toEqual([]);
    expect(await kafka.getTopicsMarkedForDeletion()).toEqual(['fenced', 'marker-only']);
    expect(await kafka.getIsrChangeNotifications()).toEqual([isrName]);
    expect(await kafka.getLogDirEventNotifications()).toEqual([logDirName]);
    expect(await kafka.getPreferredReplicaElection()).toEqual([{ topic: 'fenced', partition: 0 }]);
    expect(await kafka.getPartitionReassignment()).toEqual([{ topic: 'fenced', partition: 0, replicas: [2] }]);

    // the successor's deletes go through
    const w = fresh.epochZkVersion;
    await successor.setPartitionReassignment([{ topic: 'fenced', partition: 0, replicas: [3] }], w);
    expect(await kafka.getPartitionReassignment()).toEqual([{ topic: 'fenced', partition: 0, replicas: [3] }]);
    await successor.deleteTopicZnodes('fenced', w);
    await successor.deleteTopicDeletionMarker('marker-only', w);
    await successor.deleteIsrChangeNotifications([isrName], w);
    await successor.deleteLogDirEventNotifications([logDirName], w);
    await successor.deletePreferredReplicaElection(w);
    await successor.setPartitionReassignment([], w);
    expect(await kafka.getTopicAssignment('fenced')).toBeNull();
    expect(await kafka.getTopicsMarkedForDeletion()).toEqual([]);
    expect(await kafka.getIsrChangeNotifications()).toEqual([]);
    expect(await kafka.getLogDirEventNotifications()).toEqual([]);
    expect(await kafka.getPreferredReplicaElection()).toBeNull();
    expect(await kafka.getPartitionReassignment()).toBeNull();
    // deleting what is already gone is fine
    await successor.deleteTopicZnodes('fenced', w);
  });

  it('topic deletion and ISR change notifications', async () => {
    const epochZkVersion = (await kafka.getControllerEpoch())!.zkVersion;
    await kafka.markTopicForDeletion('orders');
    await kafka.markTopicForDeletion('orders');
    expect(await kafka.getTopicsMarkedForDeletion()).toEqual(['orders']);
    await kafka.deleteTopicZnodes('orders', epochZkVersion);
    expect(await kafka.getAllTopics()).not.toContain('orders');
    expect(await kafka.getTopicsMarkedForDeletion()).toEqual([]);
    expect(await kafka.zk.exists('/config/topics/orders')).toBeNull();
    expect(await kafka.getTopicAssignment('orders')).toBeNull();

    const events: ZkWatchEvent[] = [];
    expect(await kafka.getIsrChangeNotifications((e) => void events.push(e))).toEqual([]);
    const path = await kafka.createIsrChangeNotification([{ topic: 't', partition: 3 }]);
    expect(path).toMatch(/^\/isr_change_notification\/isr_change_\d{10}$/);
    const names = await kafka.getIsrChangeNotifications();
    expect(names).toHaveLength(1);
    expect(await kafka.getIsrChangeNotification(names[0]!)).toEqual([{ topic: 't', partition: 3 }]);
    await kafka.deleteIsrChangeNotifications(names, epochZkVersion);
    expect(await kafka.getIsrChangeNotifications()).toEqual([]);
    expect(events).toEqual([{ type: 'childrenChanged', path: '/isr_change_notification' }]);
  });

  it('log dir event notifications (KIP-112): Kafka JSON in sequential nodes, watched, deleted', async () => {
    const events: ZkWatchEvent[] = [];
    expect(await kafka.getLogDirEventNotifications((e) => void events.push(e))).toEqual([]);
    const epochZkVersion = (await kafka.getControllerEpoch())!.zkVersion;
    const path = await kafka.propagateLogDirEvent(2);
    expect(path).toMatch(/^\/log_dir_event_notification\/log_dir_event_\d{10}$/);
    expect(JSON.parse((await kafka.zk.getData(path)).data.toString())).toEqual({ version: 1, broker: 2, event: 1 });
    const names = await kafka.getLogDirEventNotifications();
    expect(names).toHaveLength(1);
    expect(await kafka.getLogDirEventNotification(names[0]!)).toEqual({ brokerId: 2, event: 1 });
    await kafka.deleteLogDirEventNotifications(names, epochZkVersion);
    expect(await kafka.getLogDirEventNotifications()).toEqual([]);
    expect(await kafka.getLogDirEventNotification(names[0]!)).toBeNull();
    expect(events).toEqual([{ type: 'childrenChanged', path: '/log_dir_event_notification' }]);
  });

  it('describeController: /controller is ours only if this session owns it, not just our broker id', async () => {
    const mine = new KafkaZkClient(await zk.client());
    const earlier = new KafkaZkClient(await zk.client());
    await kafka.zk.deleteRecursive('/controller');
    expect(await mine.describeController(21)).toMatchObject({ elected: false, controllerId: null });
    // an earlier session of broker 21 still holds /controller
    const old = await earlier.tryElectController(21);
    expect(old.elected).toBe(true);
    expect(await mine.describeController(21)).toMatchObject({ elected: false, controllerId: 21, epoch: old.epoch });
    expect(await earlier.describeController(21)).toMatchObject({ elected: true, controllerId: 21, epoch: old.epoch, epochZkVersion: old.epochZkVersion });
    // resigning is a no-op for a session that does not own the node
    await mine.resignController(21);
    expect(await kafka.getControllerId()).toBe(21);
    await earlier.resignController(21);
    expect(await kafka.getControllerId()).toBeNull();
  });

  it('old consumer: registration, partition ownership, offsets', async () => {
    const c1 = await zk.client();
    const consumer1 = new KafkaZkClient(c1);
    const consumer2 = new KafkaZkClient(await zk.client());
    const registration = { subscription: { t: 1 }, pattern: 'static' as const, timestamp: 1588888888888 };
    await consumer1.registerConsumer('g', 'g_c1', registration);
    await consumer2.registerConsumer('g', 'g_c2', registration);
    expect(await kafka.getConsumerIds('g')).toEqual(['g_c1', 'g_c2']);
    expect((await kafka.zk.getData('/consumers/g/ids/g_c1')).data.toString()).toBe('{"version":1,"subscription":{"t":1},"pattern":"static","timestamp":"1588888888888"}');
    expect(await kafka.getConsumerRegistration('g', 'g_c2')).toEqual(registration);

    expect(await consumer1.claimPartition('g', 't', 0, 'g_c1-0')).toBe(true);
    expect(await consumer1.claimPartition('g', 't', 0, 'g_c1-0')).toBe(true);
    expect(await consumer2.claimPartition('g', 't', 0, 'g_c2-0')).toBe(false);
    expect(await kafka.getPartitionOwner('g', 't', 0)).toBe('g_c1-0');
    await consumer2.releasePartition('g', 't', 0); // not the owner: no effect
    expect(await kafka.getPartitionOwner('g', 't', 0)).toBe('g_c1-0');
    await consumer1.releasePartition('g', 't', 0);
    expect(await consumer2.claimPartition('g', 't', 0, 'g_c2-0')).toBe(true);

    expect(await kafka.getConsumerOffset('g', 't', 0)).toBeNull();
    await consumer2.commitConsumerOffset('g', 't', 0, 42n);
    await consumer2.commitConsumerOffset('g', 't', 0, 43n);
    expect(await kafka.getConsumerOffset('g', 't', 0)).toBe(43n);
    expect((await kafka.zk.getData('/consumers/g/offsets/t/0')).data.toString()).toBe('43');

    await c1.close(); // ephemerals go with the session
    expect(await kafka.getConsumerIds('g')).toEqual(['g_c2']);
  });

  it('stores dynamic broker configs in /config/brokers/<id|<default>> and announces every change in /config/changes', async () => {
    expect(await kafka.getBrokerConfig('<default>')).toEqual({});
    const before = await kafka.getConfigChangeNotifications();
    await kafka.changeBrokerConfig('<default>', { 'log.retention.ms': '3600000' });
    await kafka.changeBrokerConfig(3, { 'message.max.bytes': '2000' });
    await kafka.changeBrokerConfig(3, {}); // replaces the whole set
    await kafka.changeTopicConfig('orders', { 'retention.ms': '5' });
    expect((await kafka.zk.getData('/config/brokers/<default>')).data.toString()).toBe('{"version":1,"config":{"log.retention.ms":"3600000"}}');
    expect(await kafka.getBrokerConfig('<default>')).toEqual({ 'log.retention.ms': '3600000' });
    expect(await kafka.getBrokerConfig(3)).toEqual({});
    expect(await kafka.getTopicConfig('orders')).toEqual({ 'retention.ms': '5' });
    const added = (await kafka.getConfigChangeNotifications()).filter((n) => !before.includes(n));
    expect(added).toHaveLength(4);
    expect(added.every((n) => /^config_change_\d{10}$/.test(n))).toBe(true);
    expect((await kafka.zk.getData(`/config/changes/${added[0]}`)).data.toString()).toBe('{"version":2,"entity_path":"brokers/<default>"}');
    expect(await Promise.all(added.map((n) => kafka.getConfigChangeNotification(n)))).toEqual(['brokers/<default>', 'brokers/3', 'brokers/3', 'topics/orders']);
    expect(await kafka.getConfigChangeNotification('config_change_9999999999')).toBeNull();
  });

  it('writes a user config on a ZooKeeper no broker has prepared (gregor users before the first broker, as kafka-configs)', async () => {
    await kafka.zk.deleteRecursive('/config');
    await kafka.changeUserConfig('admin', { 'SCRAM-SHA-512': 'salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096' });
    expect(await kafka.getUsers()).toEqual(['admin']);
    const [note] = await kafka.getConfigChangeNotifications();
    expect(await kafka.getConfigChangeNotification(note!)).toBe('users/admin');
    await kafka.ensurePersistentPaths(); // what a starting broker does next finds them in place
  });

  it('reports ZooKeeper errors with their codes', async () => {
    const error = await kafka.updatePartitionState('missing', 0, { leader: 1, leaderEpoch: 0, isr: [1], controllerEpoch: 1 }, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZkError);
    expect((error as ZkError).zkCode).toBe(ZkErrorCode.NO_NODE);
  });
});
