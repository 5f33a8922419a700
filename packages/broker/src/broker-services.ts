import type { Logger } from '@gregor/common';
import type { ReadBufferPool } from '@gregor/storage';
import type { KafkaController } from '@gregor/controller';
import type { GroupCoordinator } from '@gregor/coordinator'; // group coordinator
import type { AdminManager } from './admin/admin-manager.js';
import type { ConfigAdminManager } from './admin/config-admin-manager.js';
import type { ReplicaManager } from './cluster/replica-manager.js';
import type { BrokerConfig } from './config/broker-config.js';
import type { TopicConfigCache } from './config/topic-config-cache.js';
import type { FetchManager } from './fetch-session/fetch-manager.js';
import type { MetadataCache } from './metadata/metadata-cache.js';
import type { AuthHelper } from './security/auth-helper.js';
import type { ProducerIdManager } from './producer/producer-id-manager.js';

/** What request handlers may use: the broker's components, passed explicitly. */
export interface BrokerServices {
  readonly brokerId: number;
  readonly config: BrokerConfig;
  readonly log: Logger;
  readonly metadataCache: MetadataCache;
  readonly replicaManager: ReplicaManager;
  readonly fetchManager: FetchManager;
  /** Buffers Fetch reads go into, back once the response is flushed (socket server). */
  readonly readPool?: ReadBufferPool;
  readonly controller: KafkaController;
  readonly adminManager: AdminManager;
  readonly topicConfigs: TopicConfigCache;
  readonly configAdmin: ConfigAdminManager;
  readonly groupCoordinator: GroupCoordinator; // group coordinator
  /** Permission checks (AclAuthorizer, or the inter-broker listener rule without one). */
  readonly auth: AuthHelper;
  readonly producerIdManager: ProducerIdManager;
  /** A fetch asked for more than fetch.max.bytes (or, from a follower, replica.fetch.response.max.bytes): counted. */
  fetchCapped(replica: boolean): void;
  supportedApis(): { apiKey: number; minVersion: number; maxVersion: number }[];
}
