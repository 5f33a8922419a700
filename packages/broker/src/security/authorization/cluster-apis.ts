import { ErrorCode } from '@gregor/common';
import { ApiKey, ConfigResourceType } from '@gregor/protocol';
import type { KafkaApis, RequestContext } from '../../kafka-apis.js';
import type { Operation } from '../acl.js';
import type { AuthHelper } from '../auth-helper.js';

const CLUSTER_DENIED: number = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;

/** Broker and logger resources need the Cluster operation, topics the Topic one; the denial codes differ (31 / 29). */
function configResourceAllowed(auth: AuthHelper, ctx: RequestContext, op: Operation, resourceType: number, name: string): boolean {
  if (resourceType === ConfigResourceType.TOPIC) return auth.authorize(ctx, op, 'Topic', name);
  return auth.authorizeCluster(ctx, op);
}

function configDenial(resourceType: number): number {
  return resourceType === ConfigResourceType.TOPIC ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : CLUSTER_DENIED;
}

/** With an authorizer: configs, log dirs, elections and reassignments check their Cluster or Topic operation. */
export function installClusterAuthorization(apis: KafkaApis, auth: AuthHelper): void {
  apis.wrap(ApiKey.DescribeConfigs, (inner) => async (req, ctx) => {
    const ok = req.resources.map((r) => configResourceAllowed(auth, ctx, 'DescribeConfigs', r.resourceType, r.resourceName));
    if (ok.every(Boolean)) return inner(req, ctx);
    const resources = req.resources.filter((_, i) => ok[i]);
    const res = resources.length > 0 ? await inner({ ...req, resources }, ctx) : { throttleTimeMs: 0, results: [] };
    const denied = req.resources
      .filter((_, i) => !ok[i])
      .map((r) => ({ errorCode: configDenial(r.resourceType), errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] }));
    return res && { ...res, results: [...res.results, ...denied] };
  });

  for (const apiKey of [ApiKey.AlterConfigs, ApiKey.IncrementalAlterConfigs] as const) {
    apis.wrap(apiKey as typeof ApiKey.AlterConfigs, (inner) => async (req, ctx) => {
      const ok = req.resources.map((r) => configResourceAllowed(auth, ctx, 'AlterConfigs', r.resourceType, r.resourceName));
      if (ok.every(Boolean)) return inner(req, ctx);
      const resources = req.resources.filter((_, i) => ok[i]);
      const res = resources.length > 0 ? await inner({ ...req, resources }, ctx) : { throttleTimeMs: 0, responses: [] };
      const denied = req.resources.filter((_, i) => !ok[i]).map((r) => ({ errorCode: configDenial(r.resourceType), errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName }));
      return res && { ...res, responses: [...res.responses, ...denied] };
    });
  }

  // DescribeLogDirs without Cluster Describe: an empty answer, as Kafka gives.
  apis.wrap(ApiKey.DescribeLogDirs, (inner) => (req, ctx) => (auth.authorizeCluster(ctx, 'Describe') ? inner(req, ctx) : { throttleTimeMs: 0, results: [] }));

  apis.wrap(ApiKey.ElectLeaders, (inner) => (req, ctx) => {
    if (auth.authorizeCluster(ctx, 'Alter')) return inner(req, ctx);
    const results = (req.topicPartitions ?? []).map((t) => ({ topic: t.topic, partitionResult: t.partitionId.map((partitionId) => ({ partitionId, errorCode: CLUSTER_DENIED, errorMessage: null })) }));
    return { throttleTimeMs: 0, errorCode: CLUSTER_DENIED, replicaElectionResults: results };
  });
  apis.wrap(ApiKey.AlterPartitionReassignments, (inner) => (req, ctx) =>
    auth.authorizeCluster(ctx, 'Alter') ? inner(req, ctx) : { throttleTimeMs: 0, errorCode: CLUSTER_DENIED, errorMessage: null, responses: [] },
  );
  apis.wrap(ApiKey.ListPartitionReassignments, (inner) => (req, ctx) =>
    auth.authorizeCluster(ctx, 'Describe') ? inner(req, ctx) : { throttleTimeMs: 0, errorCode: CLUSTER_DENIED, errorMessage: null, topics: [] },
  );

  // A transactional id needs Write on it; an idempotent producer Cluster IdempotentWrite (Kafka 2.4) or,
  // as KIP-679 (Kafka 3.0) relaxed it, Write on any topic, so a plain producer ACL suffices.
  apis.wrap(ApiKey.InitProducerId, (inner) => (req, ctx) => {
    const denied = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, producerId: -1, producerEpoch: -1 });
    if (req.transactionalId !== null) {
      return auth.authorize(ctx, 'Write', 'TransactionalId', req.transactionalId) ? inner(req, ctx) : denied(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    if (auth.authorizeCluster(ctx, 'IdempotentWrite', false) || auth.authorizeByResourceType(ctx, 'Write', 'Topic')) return inner(req, ctx);
    return denied(CLUSTER_DENIED);
  });
}
