import { ErrorCode, type Logger } from '@gregor/common';
import { ApiKey } from '@gregor/protocol';
import type { ApiHandler, KafkaApis, RequestContext } from '../../kafka-apis.js';
import type { AuthHelper } from '../auth-helper.js';

const DENIED: number = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;

/** Logs a refused controller or replica request: on a client listener it is an attack or a misconfiguration. */
export function logRefused(log: Logger, api: string, ctx: RequestContext): void {
  log.warn(
    { api, principal: ctx.conn.principal, conn: ctx.conn.remoteAddress, listener: ctx.conn.listenerName, clientId: ctx.header.clientId },
    `refused ${api} from ${ctx.conn.principal} at ${ctx.conn.remoteAddress} on listener ${ctx.conn.listenerName}: it needs ClusterAction (or, without an authorizer, the inter-broker listener)`,
  );
}

function guard<Req, Res>(auth: AuthHelper, log: Logger, api: string, denied: (req: Req) => NoInfer<Res>) {
  return (inner: ApiHandler<Req, Res>): ApiHandler<Req, Res> =>
    (req, ctx) => {
      if (auth.clusterAction(ctx)) return inner(req, ctx);
      logRefused(log, api, ctx);
      return denied(req);
    };
}

/**
 * The controller-to-broker APIs need Cluster ClusterAction (Kafka's authorizeClusterOperation);
 * without an authorizer they are served on the inter-broker listener only. A refused request gets
 * CLUSTER_AUTHORIZATION_FAILED for itself and every partition it names, and changes nothing.
 */
export function installInterBrokerChecks(apis: KafkaApis, auth: AuthHelper, log: Logger): void {
  apis.wrap(
    ApiKey.LeaderAndIsr,
    guard(auth, log, 'LeaderAndIsr', (req) => ({
      errorCode: DENIED,
      partitionErrors: [
        ...(req.ungroupedPartitionStates ?? []).map((p) => ({ topicName: p.topicName ?? '', partitionIndex: p.partitionIndex, errorCode: DENIED })),
        ...(req.topicStates ?? []).flatMap((t) => t.partitionStates.map((p) => ({ topicName: t.topicName, partitionIndex: p.partitionIndex, errorCode: DENIED }))),
      ],
    })),
  );
  apis.wrap(
    ApiKey.StopReplica,
    guard(auth, log, 'StopReplica', (req) => ({
      errorCode: DENIED,
      partitionErrors: [
        ...(req.ungroupedPartitions ?? []).map((p) => ({ topicName: p.topicName, partitionIndex: p.partitionIndex, errorCode: DENIED })),
        ...(req.topics ?? []).flatMap((t) => t.partitionIndexes.map((partitionIndex) => ({ topicName: t.name, partitionIndex, errorCode: DENIED }))),
      ],
    })),
  );
  apis.wrap(ApiKey.UpdateMetadata, guard(auth, log, 'UpdateMetadata', () => ({ errorCode: DENIED })));
  apis.wrap(ApiKey.ControlledShutdown, guard(auth, log, 'ControlledShutdown', () => ({ errorCode: DENIED, remainingPartitions: [] })));
}
