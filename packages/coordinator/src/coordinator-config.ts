/** Group coordinator settings, with Kafka's broker config names and defaults (OffsetConfig, GroupConfig). */
export interface GroupCoordinatorConfig {
  brokerId: number;
  /** `offsets.topic.num.partitions` (50). */
  offsetsTopicNumPartitions: number;
  /** `group.initial.rebalance.delay.ms` (3000). */
  groupInitialRebalanceDelayMs: number;
  /** `group.min.session.timeout.ms` (6000). */
  groupMinSessionTimeoutMs: number;
  /** `group.max.session.timeout.ms` (1800000). */
  groupMaxSessionTimeoutMs: number;
  /** `offset.metadata.max.bytes` (4096). */
  offsetMetadataMaxBytes: number;
  /** `offsets.retention.minutes` in ms (7 days). */
  offsetsRetentionMs: number;
  /** `offsets.retention.check.interval.ms` (600000). */
  offsetsRetentionCheckIntervalMs: number;
  /** `offsets.load.buffer.size` (5242880): bytes read per step while loading a partition. */
  offsetsLoadBufferSize: number;
}

export const DEFAULT_COORDINATOR_CONFIG: Omit<GroupCoordinatorConfig, 'brokerId'> = {
  offsetsTopicNumPartitions: 50,
  groupInitialRebalanceDelayMs: 3000,
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1800000,
  offsetMetadataMaxBytes: 4096,
  offsetsRetentionMs: 7 * 24 * 3600 * 1000,
  offsetsRetentionCheckIntervalMs: 600000,
  offsetsLoadBufferSize: 5242880,
};

/** Kafka's GroupCoordinator.NewMemberJoinTimeoutMs: a new member must complete its first join within this. */
export const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;
