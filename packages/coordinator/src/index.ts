export { GroupCoordinator, type JoinContext } from './group-coordinator.js';
export { GroupMetadataManager, type TopicPartitionOffset } from './group-metadata-manager.js';
export { GroupMetadata, offsetKey, type GroupState } from './group-metadata.js';
export { MemberMetadata, type Protocol } from './member-metadata.js';
export { DEFAULT_COORDINATOR_CONFIG, NEW_MEMBER_JOIN_TIMEOUT_MS, type GroupCoordinatorConfig } from './coordinator-config.js';
export type { OffsetsTopicLog } from './offsets-topic-log.js';
export { partitionForGroup, javaStringHashCode, OFFSETS_TOPIC } from './partition-for.js';
export {
  encodeOffsetKey,
  encodeOffsetValue,
  encodeGroupKey,
  encodeGroupValue,
  decodeKey,
  decodeOffsetValue,
  decodeGroupValue,
  type OffsetKey,
  type GroupKey,
  type OffsetAndMetadata,
  type GroupRecord,
  type MemberRecord,
} from './records.js';
