export { KafkaServer, type BrokerState } from './kafka-server.js';
export type { RequestEvent } from './kafka-apis.js'; // metrics
export {
  buildBrokerConfig,
  readPropertiesFile,
  propertiesFromEnv,
  propertiesFromOverrides,
  parseEndpoint,
  knownConfigNames,
  brokerConfigDocs,
  type BrokerConfig,
  type Endpoint,
} from './config/broker-config.js';
export { parseProperties } from './config/properties.js';
export { topicConfigNames, topicConfigDocs, validateTopicConfig } from './config/topic-config.js';
export { MetadataCache, type LiveBroker, type CachedPartitionState } from './metadata/metadata-cache.js';
export { Partition } from './cluster/partition.js';
export { ReplicaManager } from './cluster/replica-manager.js';
export { partitionOffset, type OffsetLookup } from './handlers/list-offsets.js'; // the HTTP admin's in-process reads
export { produceRefusal } from './handlers/produce.js';
export { renderConfigurationDoc } from './config/config-docs.js';
export { FetchManager, type FetchContext, type FetchSessionStats } from './fetch-session/fetch-manager.js';
export { FetchSessionCache, FETCH_SESSION_EVICTION_MS } from './fetch-session/fetch-session-cache.js';
export { FetchSession, CachedPartition, INVALID_SESSION_ID, INITIAL_EPOCH, FINAL_EPOCH, nextEpoch } from './fetch-session/fetch-session.js';
export { upsertScramUser, deleteScramUser, listScramUsers, ALL_SCRAM_MECHANISMS, type ScramUser } from './security/scram-users.js';
// `gregor acls --authorizer-properties`: the authorizer run in the CLI process on ZooKeeper.
export { AclAuthorizer, type AclDeleteResult } from './security/acl-authorizer.js';
export { aclBindingProblem } from './security/acl-binding-check.js';
export { ACL_AUTHORIZER_CLASSES, type AuthorizerSettings } from './config/security-config.js';
export {
  resourceTypeCode,
  resourceTypeOf,
  operationCode,
  operationOf,
  patternTypeCode,
  patternTypeOf,
  permissionCode,
  permissionOf,
  aclFilterOf,
  type AclBinding as AuthorizerAclBinding,
  type AclFilter as AuthorizerAclFilter,
} from './security/acl.js';
