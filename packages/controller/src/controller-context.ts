import type { LeaderAndIsr } from './leader-election.js';
import { replicaSet, type ReplicaSet } from './replica-set.js';

export interface BrokerEndpointInfo {
  listenerName: string;
  host: string;
  port: number;
  securityProtocol: string;
}

export interface ControllerBrokerInfo {
  id: number;
  rack: string | null;
  endpoints: BrokerEndpointInfo[];
  /** czxid of /brokers/ids/<id>: a restarted broker gets a new one (Kafka's broker epoch). */
  epoch: bigint;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export const tpKey = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * The controller's own view of the cluster (Kafka's ControllerContext), loaded from ZooKeeper on
 * failover and kept current by events. Requests to brokers are computed from it.
 */
export class ControllerContext {
  epoch = 0;
  epochZkVersion = 0;
  readonly liveBrokers = new Map<number, ControllerBrokerInfo>();
  readonly shuttingDownBrokerIds = new Set<number>();
  /** topic -> partition -> assigned replicas (while a partition moves: its full replica set, target then original) */
  readonly assignments = new Map<string, Map<number, number[]>>();
  /** "topic-partition" -> leader and ISR as last written to ZooKeeper */
  readonly leadership = new Map<string, LeaderAndIsr & TopicPartition>();
  readonly topicsToBeDeleted = new Set<string>();
  /**
   * Partitions being reassigned (KIP-455): "topic-partition" -> the replicas being added and removed;
   * the replica set itself is in `assignments`. Mirrors the assignment znode's adding/removing maps.
   */
  readonly reassignments = new Map<string, TopicPartition & { adding: number[]; removing: number[] }>();
  /** Brokers that still have to confirm StopReplica(delete) of a topic being deleted. */
  readonly deletionPendingReplicas = new Map<string, Set<string>>();
  /**
   * KIP-112: per live broker, the partitions ("topic-partition") whose replica sits in a failed log dir, as its
   * LeaderAndIsr answers (KAFKA_STORAGE_ERROR) said. Cleared when the broker restarts.
   */
  readonly replicasOnOfflineDirs = new Map<number, Set<string>>();

  reset(): void {
    this.liveBrokers.clear();
    this.shuttingDownBrokerIds.clear();
    this.assignments.clear();
    this.leadership.clear();
    this.topicsToBeDeleted.clear();
    this.deletionPendingReplicas.clear();
    this.reassignments.clear();
    this.replicasOnOfflineDirs.clear();
  }

  /** A deleted or vanished topic: everything known about it goes (Kafka's removeTopic). */
  removeTopic(topic: string): void {
    for (const p of this.assignments.get(topic)?.keys() ?? []) {
      this.leadership.delete(tpKey(topic, p));
      this.reassignments.delete(tpKey(topic, p));
    }
    this.assignments.delete(topic);
    this.topicsToBeDeleted.delete(topic);
    this.deletionPendingReplicas.delete(topic);
  }

  /** Kafka's isReplicaOnline: the broker is live and the replica is not in one of its failed log dirs. */
  isReplicaOnline(brokerId: number, tp: TopicPartition): boolean {
    return this.liveBrokers.has(brokerId) && !this.replicasOnOfflineDirs.get(brokerId)?.has(tpKey(tp.topic, tp.partition));
  }

  /** The brokers whose replica of `tp` can lead or be in sync: live, without the partition in a failed dir. */
  onlineReplicaBrokers(tp: TopicPartition): Set<number> {
    const out = new Set<number>();
    for (const id of this.liveBrokers.keys()) if (this.isReplicaOnline(id, tp)) out.add(id);
    return out;
  }

  liveBrokerIds(): Set<number> {
    return new Set(this.liveBrokers.keys());
  }

  /** Live and not shutting down. */
  liveOrShuttingDownIds(): Set<number> {
    return new Set(this.liveBrokers.keys());
  }

  allPartitions(): TopicPartition[] {
    const out: TopicPartition[] = [];
    for (const [topic, parts] of this.assignments) for (const partition of parts.keys()) out.push({ topic, partition });
    return out;
  }

  partitionsOfTopic(topic: string): TopicPartition[] {
    return [...(this.assignments.get(topic)?.keys() ?? [])].map((partition) => ({ topic, partition }));
  }

  replicasOf(topic: string, partition: number): number[] {
    return this.assignments.get(topic)?.get(partition) ?? [];
  }

  /** The partition's replica set with what is being added and removed. */
  replicaSetOf(topic: string, partition: number): ReplicaSet {
    const r = this.reassignments.get(tpKey(topic, partition));
    const s = replicaSet(this.replicasOf(topic, partition));
    return r ? { ...s, adding: [...r.adding], removing: [...r.removing] } : s;
  }

  /** Records a partition's replica set (the caller has written it to ZooKeeper first). */
  setReplicaSet(topic: string, partition: number, s: ReplicaSet): void {
    let parts = this.assignments.get(topic);
    if (!parts) this.assignments.set(topic, (parts = new Map()));
    parts.set(partition, [...s.replicas]);
    const key = tpKey(topic, partition);
    if (s.adding.length > 0 || s.removing.length > 0) this.reassignments.set(key, { topic, partition, adding: [...s.adding], removing: [...s.removing] });
    else this.reassignments.delete(key);
  }

  /** A topic's assignment as the znode stores it, with `change` applied to one partition. */
  topicAssignmentWith(topic: string, partition: number, change: ReplicaSet): { partitions: Map<number, number[]>; addingReplicas: Map<number, number[]>; removingReplicas: Map<number, number[]> } {
    const partitions = new Map<number, number[]>();
    const addingReplicas = new Map<number, number[]>();
    const removingReplicas = new Map<number, number[]>();
    for (const p of this.assignments.get(topic)?.keys() ?? []) {
      const s = p === partition ? change : this.replicaSetOf(topic, p);
      partitions.set(p, s.replicas);
      if (s.adding.length > 0) addingReplicas.set(p, s.adding);
      if (s.removing.length > 0) removingReplicas.set(p, s.removing);
    }
    return { partitions, addingReplicas, removingReplicas };
  }

  partitionsOnBroker(brokerId: number): TopicPartition[] {
    return this.allPartitions().filter((tp) => this.replicasOf(tp.topic, tp.partition).includes(brokerId));
  }

  partitionsLedBy(brokerId: number): TopicPartition[] {
    const out: TopicPartition[] = [];
    for (const l of this.leadership.values()) if (l.leader === brokerId) out.push({ topic: l.topic, partition: l.partition });
    return out;
  }
}
