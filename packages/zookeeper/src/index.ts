export { ZkClient, type ZkClientOptions } from './zk-client.js';
export { readZkClusterView, type ZkClusterView } from './zk-cluster-view.js';
export { ZkSession, type ZkSessionOptions, type NewSessionHandler } from './zk-session.js';
export { ZkError, ZkErrorCode, zkErrorName, isZkError, isZkConnectionError } from './zk-errors.js';
export type { ZkStat, ZkCreateMode, ZkData, ZkOp, ZkOpResult, ZkWatchEvent, ZkWatchEventType, ZkWatcher } from './zk-types.js';
export * as zkPaths from './paths.js';
export * from './paths.js';
export * from './data.js';
export {
  KafkaZkClient,
  type ZkClientSource,
  type RegisteredBroker,
  type ControllerElection,
  type PartitionStateWithVersion,
  type PartitionStateToCreate,
  type PartitionStateCreateResult,
} from './kafka-zk-client.js';
export { TopicExistsError, ControllerMovedError, BrokerIdInUseError } from './kafka-zk-errors.js';
export { ZkAclStore, type VersionedAcls, type AclChangeNotification } from './zk-acl-store.js';
export { encodeAcls, decodeAcls, encodeAclChange, decodeAclChange, isAclResourceType, type AclEntryData, type AclResourceData } from './acl-data.js';
export { PRODUCER_ID_BLOCK_SIZE, encodeProducerIdBlock, decodeProducerIdBlock, nextProducerIdBlock, type ProducerIdBlock } from './producer-id-block.js';
