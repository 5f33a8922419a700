import type { PartitionState } from '@gregor/common';
import type { TopicAssignment } from '@gregor/zookeeper';
import type { ControllerBrokerInfo } from './controller-context.js';

/** The partition state znode's content (Kafka's /brokers/topics/T/partitions/P/state): the house's one PartitionState. */
export type PartitionStateData = PartitionState;

export interface ElectionOutcome {
  elected: boolean;
  controllerId: number | null;
  epoch: number;
  epochZkVersion: number;
}

/**
 * What the controller needs from ZooKeeper. Every write made while acting as controller is fenced
 * with the zkVersion of /controller_epoch, so a controller that lost its place cannot write.
 * Watch callbacks fire once; the controller re-reads (and re-watches) when handling the event.
 */
export interface ControllerZk {
  tryElectController(brokerId: number): Promise<ElectionOutcome>;
  /** Who holds /controller; `elected` only if this session owns the ephemeral node (resolves an election whose answer was lost). */
  describeController(brokerId: number): Promise<ElectionOutcome>;
  /** Deletes /controller if this session owns it, so another broker can take over (Kafka's triggerControllerMove). */
  resignController(brokerId: number): Promise<void>;
  /** Reads /controller; `watch` fires when it is created, changed or deleted. */
  getControllerId(watch?: () => void): Promise<number | null>;
  getBrokerIds(watch?: () => void): Promise<number[]>;
  getBroker(id: number): Promise<ControllerBrokerInfo | null>;
  getTopics(watch?: () => void): Promise<string[]>;
  /** Overrides in /config/topics/<t> ({} when none). */
  getTopicConfig(topic: string): Promise<Record<string, string>>;
  /** /brokers/topics/<t>: replicas per partition and, for partitions being reassigned, the replicas being added and removed. */
  getTopicAssignment(topic: string, watch?: () => void): Promise<TopicAssignment | null>;
  getPartitionState(topic: string, partition: number): Promise<{ state: PartitionStateData; zkVersion: number } | null>;
  /** Creates the state znode; throws an error with `nodeExists: true` when it exists. Returns the zkVersion (0). */
  createPartitionState(topic: string, partition: number, state: PartitionStateData, controllerEpochZkVersion: number): Promise<number>;
  /** Conditional update; throws an error with `badVersion: true` on a stale zkVersion. Returns the new zkVersion. */
  updatePartitionState(
    topic: string,
    partition: number,
    state: PartitionStateData,
    expectedZkVersion: number,
    controllerEpochZkVersion: number,
  ): Promise<number>;
  getTopicsMarkedForDeletion(watch?: () => void): Promise<string[]>;
  /** Removes /admin/delete_topics/T only (deletion disabled or topic unknown). */
  removeTopicDeletionMarker(topic: string, controllerEpochZkVersion: number): Promise<void>;
  /** Removes /brokers/topics/T (with its partition states), /config/topics/T and /admin/delete_topics/T. */
  deleteTopicZnodes(topic: string, controllerEpochZkVersion: number): Promise<void>;
  /** /admin/preferred_replica_election: partitions to move back to their preferred leader, or null. */
  getPreferredReplicaElection(watch?: () => void): Promise<{ topic: string; partition: number }[] | null>;
  deletePreferredReplicaElection(controllerEpochZkVersion: number): Promise<void>;
  /** /admin/reassign_partitions: target replicas per partition, or null. */
  getPartitionReassignment(watch?: () => void): Promise<{ topic: string; partition: number; replicas: number[] }[] | null>;
  /** Rewrites /admin/reassign_partitions with what is still pending (deletes it when nothing is). */
  setPartitionReassignment(pending: { topic: string; partition: number; replicas: number[] }[], controllerEpochZkVersion: number): Promise<void>;
  /** Replaces a topic's replica assignment (version 2, with adding/removing replicas), fenced on the controller epoch. */
  writeTopicAssignment(topic: string, assignment: TopicAssignment, controllerEpochZkVersion: number): Promise<void>;
  getIsrChangeNotifications(watch?: () => void): Promise<{ name: string; partitions: { topic: string; partition: number }[] }[]>;
  deleteIsrChangeNotifications(names: string[], controllerEpochZkVersion: number): Promise<void>;
  /** /log_dir_event_notification (KIP-112): the broker each notification names (null if it vanished meanwhile). */
  getLogDirEventNotifications(watch?: () => void): Promise<{ name: string; brokerId: number | null }[]>;
  deleteLogDirEventNotifications(names: string[], controllerEpochZkVersion: number): Promise<void>;
}

export function isNodeExists(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { nodeExists?: boolean }).nodeExists === true;
}

export function isBadVersion(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { badVersion?: boolean }).badVersion === true;
}
