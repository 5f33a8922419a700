import type { ZkWatcher } from './zk-types.js';
import * as paths from './paths.js';
import {
  decodeIsrChangeNotification,
  decodeLogDirEventNotification,
  decodePreferredReplicaElection,
  decodeReassignment,
  encodeIsrChangeNotification,
  encodeLogDirEventNotification,
  encodePreferredReplicaElection,
  encodeReassignment,
  type PartitionReassignment,
  type TopicPartition,
} from './data.js';
import { ConfigZnodes } from './config-znodes.js';

/**
 * KafkaZkClient's notification and admin-request znodes: ISR changes and log dir events (brokers to the
 * controller), reassignments and preferred-replica elections (admins to the controller). Every delete
 * the controller makes is fenced on /controller_epoch.
 */
export class NotificationZnodes extends ConfigZnodes {
  /** Partition leader: one sequential /isr_change_notification/isr_change_<seq> node; returns its path. */
  createIsrChangeNotification(partitions: TopicPartition[]): Promise<string> {
    return this.zk.create(`${paths.isrChangeNotificationPath}/${paths.isrChangeNotificationPrefix}`, encodeIsrChangeNotification(partitions), 'persistent_sequential');
  }

  /** Sequence node names, oldest first. */
  async getIsrChangeNotifications(watcher?: ZkWatcher): Promise<string[]> {
    return (await this.zk.getChildren(paths.isrChangeNotificationPath, watcher)).filter((c) => c.startsWith(paths.isrChangeNotificationPrefix)).sort();
  }

  /** The partitions named by one notification; [] if it was deleted meanwhile. */
  async getIsrChangeNotification(sequenceNode: string): Promise<TopicPartition[]> {
    const node = await this.zk.getDataOrNull(paths.isrChangeNotificationSequencePath(sequenceNode));
    return node ? decodeIsrChangeNotification(node.data) : [];
  }

  /** Controller: removes handled notifications, fenced on /controller_epoch. */
  async deleteIsrChangeNotifications(sequenceNodes: string[], controllerEpochZkVersion: number): Promise<void> {
    await Promise.all(sequenceNodes.map((n) => this.fencedDeleteRecursive(paths.isrChangeNotificationSequencePath(n), controllerEpochZkVersion)));
  }

  /** A broker's log dir failed (KIP-112): one sequential /log_dir_event_notification/log_dir_event_<seq> node; returns its path. */
  propagateLogDirEvent(brokerId: number): Promise<string> {
    return this.zk.create(`${paths.logDirEventNotificationPath}/${paths.logDirEventNotificationPrefix}`, encodeLogDirEventNotification(brokerId), 'persistent_sequential');
  }

  /** Sequence node names under /log_dir_event_notification, oldest first. */
  async getLogDirEventNotifications(watcher?: ZkWatcher): Promise<string[]> {
    return (await this.zk.getChildren(paths.logDirEventNotificationPath, watcher)).filter((c) => c.startsWith(paths.logDirEventNotificationPrefix)).sort();
  }

  /** The broker a notification names; null if it was deleted meanwhile. */
  async getLogDirEventNotification(sequenceNode: string): Promise<{ brokerId: number; event: number } | null> {
    const node = await this.zk.getDataOrNull(paths.logDirEventNotificationSequencePath(sequenceNode));
    return node ? decodeLogDirEventNotification(node.data) : null;
  }

  /** Controller: removes handled notifications, fenced on /controller_epoch. */
  async deleteLogDirEventNotifications(sequenceNodes: string[], controllerEpochZkVersion: number): Promise<void> {
    await Promise.all(sequenceNodes.map((n) => this.fencedDeleteRecursive(paths.logDirEventNotificationSequencePath(n), controllerEpochZkVersion)));
  }

  /** The pending reassignment, or null; a watcher fires on creation, change or deletion. */
  async getPartitionReassignment(watcher?: ZkWatcher): Promise<PartitionReassignment[] | null> {
    if (watcher && !(await this.zk.exists(paths.reassignPartitionsPath, watcher))) return null;
    const node = await this.zk.getDataOrNull(paths.reassignPartitionsPath);
    return node ? decodeReassignment(node.data) : null;
  }

  async getPreferredReplicaElection(watcher?: ZkWatcher): Promise<TopicPartition[] | null> {
    if (watcher && !(await this.zk.exists(paths.preferredReplicaElectionPath, watcher))) return null;
    const node = await this.zk.getDataOrNull(paths.preferredReplicaElectionPath);
    return node ? decodePreferredReplicaElection(node.data) : null;
  }

  /** Admin: asks the controller to reassign partitions; NODE_EXISTS (a ZkError) while one is in progress. */
  async createPartitionReassignment(partitions: PartitionReassignment[]): Promise<void> {
    await this.zk.create(paths.reassignPartitionsPath, encodeReassignment(partitions), 'persistent');
  }

  /** Controller: rewrites /admin/reassign_partitions with what is still pending, or deletes it when nothing is; fenced on /controller_epoch. */
  async setPartitionReassignment(pending: PartitionReassignment[], controllerEpochZkVersion: number): Promise<void> {
    if (pending.length === 0) await this.fencedDeleteRecursive(paths.reassignPartitionsPath, controllerEpochZkVersion);
    else await this.fencedSetData(paths.reassignPartitionsPath, encodeReassignment(pending), -1, controllerEpochZkVersion);
  }

  /** Admin: asks the controller to move leadership back to the preferred replicas; NODE_EXISTS (a ZkError) while one is in progress. */
  async createPreferredReplicaElection(partitions: TopicPartition[]): Promise<void> {
    await this.zk.create(paths.preferredReplicaElectionPath, encodePreferredReplicaElection(partitions), 'persistent');
  }

  /** Controller: the election is done; fenced on /controller_epoch. */
  async deletePreferredReplicaElection(controllerEpochZkVersion: number): Promise<void> {
    await this.fencedDeleteRecursive(paths.preferredReplicaElectionPath, controllerEpochZkVersion);
  }
}
