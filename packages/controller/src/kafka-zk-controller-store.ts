import { CorruptDataError } from '@gregor/common';
import {
  ZkError,
  ZkErrorCode,
  type KafkaZkClient,
  type TopicAssignment,
} from '@gregor/zookeeper';
import type { ControllerBrokerInfo } from './controller-context.js';
import type { ControllerZk, ElectionOutcome, PartitionStateData } from './controller-zk.js';

/** Marks ZooKeeper answers the controller reacts to (node exists, stale zkVersion). */
function tagged(err: unknown): unknown {
  if (err instanceof ZkError) {
    if (err.zkCode === ZkErrorCode.NODE_EXISTS) Object.assign(err, { nodeExists: true });
    if (err.zkCode === ZkErrorCode.BAD_VERSION) Object.assign(err, { badVersion: true });
  }
  return err;
}

/** The controller's ZooKeeper access, on Kafka's znodes through KafkaZkClient; every write and delete is fenced on the controller epoch. */
export class KafkaZkControllerStore implements ControllerZk {
  readonly #zk: KafkaZkClient;

  constructor(zk: KafkaZkClient) {
    this.#zk = zk;
  }

  async tryElectController(brokerId: number): Promise<ElectionOutcome> {
    return this.#zk.tryElectController(brokerId);
  }

  describeController(brokerId: number): Promise<ElectionOutcome> {
    return this.#zk.describeController(brokerId);
  }

  resignController(brokerId: number): Promise<void> {
    return this.#zk.resignController(brokerId);
  }

  getControllerId(watch?: () => void): Promise<number | null> {
    return this.#zk.getControllerId(watch ? () => watch() : undefined);
  }

  getBrokerIds(watch?: () => void): Promise<number[]> {
    return this.#zk.getBrokerIds(watch ? () => watch() : undefined);
  }

  async getBroker(id: number): Promise<ControllerBrokerInfo | null> {
    const b = await this.#zk.getBroker(id);
    if (!b) return null;
    return {
      id: b.brokerId,
      rack: b.rack,
      epoch: b.epoch,
      endpoints: b.endpoints.map((e) => ({ listenerName: e.listener, host: e.host, port: e.port, securityProtocol: e.securityProtocol })),
    };
  }

  getTopics(watch?: () => void): Promise<string[]> {
    return this.#zk.getAllTopics(watch ? () => watch() : undefined);
  }

  getTopicConfig(topic: string): Promise<Record<string, string>> {
    return this.#zk.getTopicConfig(topic);
  }

  async getTopicAssignment(topic: string, watch?: () => void): Promise<TopicAssignment | null> {
    const a = await this.#zk.getTopicAssignment(topic, watch ? () => watch() : undefined);
    return a ? a.assignment : null;
  }

  async getPartitionState(topic: string, partition: number) {
    return this.#zk.getPartitionState(topic, partition);
  }

  async createPartitionState(topic: string, partition: number, state: PartitionStateData, controllerEpochZkVersion: number): Promise<number> {
    const [result] = await this.#zk.createPartitionStates([{ topic, partition, state }], controllerEpochZkVersion);
    if (result!.error) throw tagged(result!.error);
    return result!.zkVersion ?? 0;
  }

  async updatePartitionState(
    topic: string,
    partition: number,
    state: PartitionStateData,
    expectedZkVersion: number,
    controllerEpochZkVersion: number,
  ): Promise<number> {
    try {
      return await this.#zk.updatePartitionState(topic, partition, state, expectedZkVersion, controllerEpochZkVersion);
    } catch (err) {
      throw tagged(err);
    }
  }

  getTopicsMarkedForDeletion(watch?: () => void): Promise<string[]> {
    return this.#zk.getTopicsMarkedForDeletion(watch ? () => watch() : undefined);
  }

  async removeTopicDeletionMarker(topic: string, controllerEpochZkVersion: number): Promise<void> {
    await this.#zk.deleteTopicDeletionMarker(topic, controllerEpochZkVersion);
  }

  async deleteTopicZnodes(topic: string, controllerEpochZkVersion: number): Promise<void> {
    await this.#zk.deleteTopicZnodes(topic, controllerEpochZkVersion);
  }

  getPreferredReplicaElection(watch?: () => void) {
    return this.#zk.getPreferredReplicaElection(watch ? () => watch() : undefined);
  }

  async deletePreferredReplicaElection(controllerEpochZkVersion: number): Promise<void> {
    await this.#zk.deletePreferredReplicaElection(controllerEpochZkVersion);
  }

  getPartitionReassignment(watch?: () => void) {
    return this.#zk.getPartitionReassignment(watch ? () => watch() : undefined);
  }

  async setPartitionReassignment(pending: { topic: string; partition: number; replicas: number[] }[], controllerEpochZkVersion: number): Promise<void> {
    await this.#zk.setPartitionReassignment(pending, controllerEpochZkVersion);
  }

  async writeTopicAssignment(topic: string, assignment: TopicAssignment, controllerEpochZkVersion: number): Promise<void> {
    const current = await this.#zk.getTopicAssignment(topic);
    if (!current) throw new Error(`topic ${topic} has no assignment znode`);
    await this.#zk.setTopicAssignment(topic, assignment, current.zkVersion, controllerEpochZkVersion);
  }

  async getIsrChangeNotifications(watch?: () => void) {
    const names = await this.#zk.getIsrChangeNotifications(watch ? () => watch() : undefined);
    const out: { name: string; partitions: { topic: string; partition: number }[] }[] = [];
    for (const name of names) out.push({ name, partitions: await this.#zk.getIsrChangeNotification(name) });
    return out;
  }

  async deleteIsrChangeNotifications(names: string[], controllerEpochZkVersion: number): Promise<void> {
    await this.#zk.deleteIsrChangeNotifications(names, controllerEpochZkVersion);
  }

  async getLogDirEventNotifications(watch?: () => void) {
    const names = await this.#zk.getLogDirEventNotifications(watch ? () => watch() : undefined);
    const out: { name: string; brokerId: number | null }[] = [];
    for (const name of names) {
      try {
        out.push({ name, brokerId: (await this.#zk.getLogDirEventNotification(name))?.brokerId ?? null });
      } catch (err) {
        // A notification Kafka could not parse either is dropped (deleted), not retried forever.
        if (!(err instanceof CorruptDataError)) throw err;
        out.push({ name, brokerId: null });
      }
    }
    return out;
  }

  async deleteLogDirEventNotifications(names: string[], controllerEpochZkVersion: number): Promise<void> {
    await this.#zk.deleteLogDirEventNotifications(names, controllerEpochZkVersion);
  }
}
