import type { LeaderAndIsr } from './leader-election.js';

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
  /** topic -> partition -> assigned replicas */
  readonly assignments = new Map<string, Map<number, number[]>>();
  /** "topic-partition" -> leader and ISR as last written to ZooKeeper */
  readonly leadership = new Map<string, LeaderAndIsr & TopicPartition>();
  readonly topicsToBeDeleted = new Set<string>();
  /** Reassignments in progress: "topic-partition" -> original and target replicas. */
  readonly reassignments = new Map<string, TopicPartition & { original: number[]; target: number[] }>();
  /** Brokers that still have to confirm StopReplica(delete) of a topic being deleted. */
  readonly deletionPendingReplicas = new Map<string, Set<string>>();

  reset(): void {
    this.liveBrokers.clear();
    this.shuttingDownBrokerIds.clear();
    this.assignments.clear();
    this.leadership.clear();
    this.topicsToBeDeleted.clear();
    this.deletionPendingReplicas.clear();
    this.reassignments.clear();
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

  partitionsOnBroker(brokerId: number): TopicPartition[] {
    return this.allPartitions().filter((tp) => this.replicasOf(tp.topic, tp.partition).includes(brokerId));
  }

  partitionsLedBy(brokerId: number): TopicPartition[] {
    const out: TopicPartition[] = [];
    for (const l of this.leadership.values()) if (l.leader === brokerId) out.push({ topic: l.topic, partition: l.partition });
    return out;
  }
}
