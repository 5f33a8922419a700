import type { Logger } from '@gregor/common';
import type { ClientSecurity } from '@gregor/net';
import type { LogManager } from '@gregor/storage';
import type { BrokerConfig } from '../config/broker-config.js';
import type { TopicConfigCache } from '../config/topic-config-cache.js';
import { cleanupPolicy } from '../config/topic-config.js';
import type { MetadataCache } from '../metadata/metadata-cache.js';
import type { IsrManager } from '../replication/isr-manager.js';
import { ReplicaManager } from './replica-manager.js';

export interface ReplicaManagerDeps {
  logManager: LogManager;
  topicConfigs: TopicConfigCache;
  metadataCache: MetadataCache;
  isrManager: IsrManager;
  /** TLS/SASL of the replica fetchers' connections; undefined = PLAINTEXT. */
  interBrokerSecurity: ClientSecurity | undefined;
}

/** The ReplicaManager with the broker's replica.* settings and the topic configs it reads per partition; started. */
export function startReplicaManager(cfg: BrokerConfig, deps: ReplicaManagerDeps, logger: Logger): ReplicaManager {
  const { topicConfigs, metadataCache } = deps;
  const replicaManager = new ReplicaManager({
    brokerId: cfg.brokerId,
    logManager: deps.logManager,
    logger,
    minInsyncReplicas: (t) => topicConfigs.get(t).minInsyncReplicas,
    topicLogConfig: (t) => topicConfigs.get(t).log,
    messageMaxBytes: (t) => topicConfigs.get(t).maxMessageBytes,
    fetcher: {
      brokerId: cfg.brokerId,
      maxWaitMs: cfg.replicaFetchWaitMaxMs,
      minBytes: cfg.replicaFetchMinBytes,
      maxBytes: cfg.replicaFetchMaxBytes,
      backoffMs: cfg.replicaFetchBackoffMs,
      requestTimeoutMs: cfg.controllerSocketTimeoutMs,
      ...(deps.interBrokerSecurity ? { security: deps.interBrokerSecurity } : {}),
    },
    replicaLagTimeMaxMs: cfg.replicaLagTimeMaxMs,
    leaderEndpoint: (id) => {
      const b = metadataCache.aliveBroker(id);
      const e = b?.endpoints.find((x) => x.listenerName === cfg.interBrokerListenerName) ?? b?.endpoints[0];
      return e ? { brokerId: id, host: e.host, port: e.port } : undefined;
    },
    isrManager: deps.isrManager,
    isBrokerAlive: (id) => metadataCache.isBrokerAlive(id),
    deleteRecordsAllowed: (t) => cleanupPolicy(topicConfigs.overrides(t), cfg.logCleanupPolicy).includes('delete'),
  });
  replicaManager.startup();
  return replicaManager;
}
