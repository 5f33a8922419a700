import { ErrorCode, GregorError, INTERNAL_TOPICS, topicNameProblem } from '@gregor/common';
import type { MetadataRequest, MetadataResponse, MetadataResponsePartition, MetadataResponseTopic } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler, RequestContext } from '../kafka-apis.js';
import { CLUSTER_RESOURCE_NAME } from '../security/acl.js';
import { OFFSETS_TOPIC } from '@gregor/coordinator'; // group coordinator
import { createOffsetsTopic } from './offsets-topic.js'; // group coordinator

/**
 * Metadata, answered from the metadata cache (fed by the controller). Unknown topics are created
 * when auto.create.topics.enable allows it, and answered with LEADER_NOT_AVAILABLE until they have leaders.
 * v8+ asks for the operations the principal may do on each topic and on the cluster.
 */
export function metadataHandler(s: BrokerServices): ApiHandler<MetadataRequest, MetadataResponse> {
  return async (req, ctx) => {
    const cache = s.metadataCache;
    const names = req.topics === null ? cache.allTopics() : req.topics.map((t) => t.name);
    const allowAutoCreate = s.config.autoCreateTopicsEnable && req.allowAutoTopicCreation !== false && req.topics !== null;
    const topics: MetadataResponseTopic[] = [];
    for (const name of names) {
      const topic = await describeTopic(s, name, allowAutoCreate);
      if (req.includeTopicAuthorizedOperations) topic.topicAuthorizedOperations = s.auth.authorizedOperations(ctx, 'Topic', name);
      topics.push(topic);
    }
    return {
      throttleTimeMs: 0,
      brokers: brokersFor(s, ctx),
      clusterId: cache.clusterId,
      controllerId: cache.controllerId,
      topics,
      ...(req.includeClusterAuthorizedOperations ? { clusterAuthorizedOperations: s.auth.authorizedOperations(ctx, 'Cluster', CLUSTER_RESOURCE_NAME) } : {}),
    };
  };
}

function brokersFor(s: BrokerServices, ctx: RequestContext) {
  // Clients get each broker's endpoint on the listener they connected to (Kafka's rule).
  return s.metadataCache
    .aliveBrokers()
    .map((b) => {
      const e = b.endpoints.find((x) => x.listenerName === ctx.conn.listenerName);
      return e ? { nodeId: b.id, host: e.host, port: e.port, rack: b.rack } : null;
    })
    .filter((b) => b !== null);
}

async function describeTopic(s: BrokerServices, name: string, allowAutoCreate: boolean): Promise<MetadataResponseTopic> {
  const cache = s.metadataCache;
  const isInternal = INTERNAL_TOPICS.has(name);
  if (topicNameProblem(name)) return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, name, isInternal, partitions: [] };
  if (!cache.contains(name)) {
    if (!allowAutoCreate) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, isInternal, partitions: [] };
    try {
      if (name === OFFSETS_TOPIC) {
        // group coordinator: its partitions, factor and compaction; Kafka 2.4 answers INVALID_REPLICATION_FACTOR
        // while too few brokers are alive to give it offsets.topic.replication.factor replicas.
        if (!(await createOffsetsTopic(s))) return { errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, name, isInternal, partitions: [] };
      } else await s.adminManager.autoCreateTopic(name);
      return { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, name, isInternal, partitions: [] };
    } catch (err) {
      const code = err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
      if (code === ErrorCode.TOPIC_ALREADY_EXISTS) return { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, name, isInternal, partitions: [] };
      s.log.warn({ topic: name, err: (err as Error).message }, 'auto-creation failed');
      return { errorCode: code, name, isInternal, partitions: [] };
    }
  }
  const partitions: MetadataResponsePartition[] = cache.partitions(name).map((p) => {
    const leaderAlive = p.leader >= 0 && cache.isBrokerAlive(p.leader);
    return {
      errorCode: leaderAlive ? ErrorCode.NONE : ErrorCode.LEADER_NOT_AVAILABLE,
      partitionIndex: p.partition,
      leaderId: leaderAlive ? p.leader : -1,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: p.replicas,
      isrNodes: p.isr,
      offlineReplicas: p.replicas.filter((r) => !cache.isBrokerAlive(r)),
    };
  });
  return { errorCode: ErrorCode.NONE, name, isInternal, partitions };
}
