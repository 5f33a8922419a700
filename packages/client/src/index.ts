// The network layer moved to @gregor/net; re-exported so existing users keep compiling.
export {
  Connection,
  ConnectionPool,
  NetworkError,
  NoCommonVersionError,
  ClientClosedError,
  AuthenticationError,
  retry,
  isRetriableError,
  AbortError,
  DEFAULT_RETRY,
  AbstractFetcherThread,
  FetchSessionHandler,
  clientSecurityFromProperties,
  securityProtocolOf,
  isSecurityProtocol,
  isSaslMechanism,
  SECURITY_PROTOCOLS,
  SASL_MECHANISMS,
  parseJaasConfig,
  jaasCredentials,
  jaasPlainUsers,
  loadTlsKeyMaterial,
  type ConnectionOptions,
  type ConnectionPoolOptions,
  type SendOptions,
  type VersionRange,
  type RetryOptions,
  type FetcherOptions,
  type FetcherSource,
  type PartitionFetchState,
  type FetchRequestData,
  type SessionPartition,
  type ClientSecurity,
  type SaslCredentials,
  type SecurityProtocol,
  type SaslMechanismName,
  type JaasEntry,
  type SslStoreSettings,
  type TlsKeyMaterial,
} from '@gregor/net';
export { KafkaClient, type BrokerMetadata, type PartitionMetadata, type TopicMetadata, type ClusterMetadata } from './cluster.js';
export { parseBrokerAddress, parseBrokerList, type ClientConfig, type BrokerAddress } from './config.js';
export { murmur2, toPositive, defaultPartition, DefaultPartitioner, type RecordKey, type PartitionerOptions } from './partitioner.js';
export {
  Producer,
  COMPRESSION_NAMES,
  isCompressionName,
  type ProducerConfig,
  type ProducerMessage,
  type ProducerRecord,
  type RecordMetadata,
  type Acks,
  type CompressionName,
  type HeaderValue,
} from './producer.js';
export {
  Consumer,
  fetchPartition,
  fetchFromBroker,
  closeFetchSession,
  type ConsumedRecord,
  type ConsumeOptions,
  type ConsumerConfig,
  type FetchConfig,
  type PartitionFetch,
  type PartitionFetchResult,
  type StartOffset,
} from './fetcher.js';
export { consumedRecordFactory } from './consumed-record.js';
export { listOffsets, LATEST_TIMESTAMP, EARLIEST_TIMESTAMP, type OffsetQuery, type PartitionOffset } from './offsets.js';
export { Admin, type NewTopic, type NewPartitions, type AdminOptions, type TopicResult } from './admin.js';
export {
  ANY_ACL_BINDING,
  aclBindingOf,
  aclFilterFields,
  type AclResourceType,
  type AclPatternType,
  type AclOperation,
  type AclPermissionType,
  type ResourcePattern,
  type AccessControlEntry,
  type AclBinding,
  type ResourcePatternFilter,
  type AccessControlEntryFilter,
  type AclBindingFilter,
  type CreateAclResult,
  type DeleteAclsResult,
} from './admin-acls.js';
export type { ConfigResource, ConfigEntry, ConfigSynonym, ConfigSourceName, ConfigDescription, ConfigOperation, AlterConfigsResult } from './admin-configs.js';
export { planReset, type ResetSpec, type PartitionRef, type PartitionOffsets, type PlannedOffset } from './reset-plan.js';
export { offsetResetRequest, type ListedGroup, type GroupListing, type GroupDescription, type GroupMemberDescription, type GroupOffset, type GroupResult } from './admin-groups.js';
export type { TopicPartitionRef, PartitionResult, ReassignmentTarget, OngoingReassignment, DeleteRecordsResult } from './admin-partitions.js';
export { Reader, type ReaderConfig, type ReaderStats, type Message } from './reader.js';
export { KafkaOffsetStore, type CommittedOffset, type CommitGeneration, type TopicPartition } from './kafka-offset-store.js';
export { GroupMembership, type Generation, type GroupMembershipConfig } from './group-membership.js';
export { findGroupCoordinator, COORDINATOR_ERRORS } from './group-coordinator-lookup.js';
export { rangeAssignor, roundRobinAssignor, assignorByName, type Assignor, type GroupMember, type GroupAssignment } from './assignors.js';
export {
  encodeSubscription,
  decodeSubscription,
  encodeAssignment,
  decodeAssignment,
  CONSUMER_PROTOCOL_TYPE,
  type Subscription,
  type Assignment,
} from './consumer-protocol.js';
export { MessageQueue } from './message-queue.js';
