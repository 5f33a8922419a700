import { ErrorCode, INTERNAL_TOPICS, topicNameProblem } from '@gregor/common';
import type { KafkaServer, CachedPartitionState } from '@gregor/broker';
import { AdminError, fromKafkaError } from './errors.js';
import type { LeaderConnections } from './leader-connections.js';
import { readPartitionOffsets, type PartitionOffsets } from './partition-offsets.js';
import { replicaStates, type ReplicaState } from './replica-states.js';

export interface TopicSummary {
  name: string;
  partitions: number;
  replicationFactor: number;
  internal: boolean;
}

export interface PartitionDescription extends PartitionOffsets {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  /** Per-replica LEO/HW/ISR membership; complete when `replicaStatesSource` is 'leader'. */
  replicaStates: ReplicaState[];
  replicaStatesSource: 'leader' | 'partial';
}

export interface TopicDescription {
  name: string;
  internal: boolean;
  configs: Record<string, string>;
  partitions: PartitionDescription[];
}

/** Throws GREGOR_ERR_INVALID_TOPIC for a name Kafka would refuse (checked before any lookup). */
export function checkTopicName(name: string): void {
  const problem = topicNameProblem(name);
  if (problem) throw fromKafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
}

export function unknownTopic(name: string): AdminError {
  return fromKafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
}

/** Every topic in this broker's metadata, by name. */
export function listTopics(server: KafkaServer): TopicSummary[] {
  const cache = server.metadataCache;
  return cache.allTopics().map((name) => {
    const parts = cache.partitions(name);
    return {
      name,
      partitions: parts.length,
      replicationFactor: Math.max(0, ...parts.map((p) => p.replicas.length)),
      internal: INTERNAL_TOPICS.has(name),
    };
  });
}

/** Leadership from the metadata cache, offsets from the leaders, configuration overrides. */
export async function describeTopic(server: KafkaServer, leaders: LeaderConnections, name: string): Promise<TopicDescription> {
  checkTopicName(name);
  const states = server.metadataCache.partitions(name);
  if (states.length === 0) throw unknownTopic(name);
  const [configs, offsets] = await Promise.all([topicOverrides(server, name, states), readPartitionOffsets(server, leaders, name, states)]);
  return {
    name,
    internal: INTERNAL_TOPICS.has(name),
    configs,
    partitions: states.map((s) => {
      const perReplica = replicaStates(server, name, s, offsets.get(s.partition));
      return {
        partition: s.partition,
        leader: s.leader,
        leaderEpoch: s.leaderEpoch,
        replicas: s.replicas,
        isr: s.isr,
        offlineReplicas: s.offlineReplicas,
        ...offsets.get(s.partition)!,
        replicaStates: perReplica.replicas,
        replicaStatesSource: perReplica.source,
      };
    }),
  };
}

/** The broker caches the overrides of the topics it hosts; for the others ZooKeeper has them. */
async function topicOverrides(server: KafkaServer, name: string, states: readonly CachedPartitionState[]): Promise<Record<string, string>> {
  if (states.some((s) => server.replicaManager.getPartition(name, s.partition))) return server.topicConfigs.overrides(name);
  return server.zk.getTopicConfig(name);
}
