import type { Logger } from '@gregor/common';
import { DEFAULT_COORDINATOR_CONFIG, GroupCoordinator, OFFSETS_TOPIC } from '@gregor/coordinator';
import type { ReplicaManager } from '../cluster/replica-manager.js';
import type { BrokerConfig } from '../config/broker-config.js';
import { ReplicaOffsetsLog } from './replica-offsets-log.js';

/** Kafka's offsets.commit.timeout.ms: how long a commit may wait for acks=-1. */
const OFFSETS_COMMIT_TIMEOUT_MS = 5000;

/**
 * Builds this broker's group coordinator and ties it to leadership of `__consumer_offsets` partitions:
 * becoming leader loads a partition's groups, becoming follower (or dropping the replica) unloads them.
 */
export function startGroupCoordinator(config: BrokerConfig, replicaManager: ReplicaManager, logger: Logger): GroupCoordinator {
  const coordinator = new GroupCoordinator(
    {
      ...DEFAULT_COORDINATOR_CONFIG,
      brokerId: config.brokerId,
      offsetsTopicNumPartitions: config.offsetsTopicNumPartitions,
      groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
      groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
      groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
      offsetsRetentionMs: config.offsetsRetentionMs,
      offsetMetadataMaxBytes: config.offsetMetadataMaxBytes,
    },
    new ReplicaOffsetsLog(() => replicaManager, OFFSETS_COMMIT_TIMEOUT_MS),
    logger,
  );
  replicaManager.leadershipListeners.push(({ leaders, followers }) => {
    for (const p of followers) if (p.topic === OFFSETS_TOPIC) coordinator.onResignation(p.partition);
    for (const p of leaders) if (p.topic === OFFSETS_TOPIC) void coordinator.onElection(p.partition);
  });
  coordinator.startup();
  return coordinator;
}
