import type { RequestContext } from '../kafka-apis.js';
import { CLUSTER_RESOURCE_NAME, SUPPORTED_OPERATIONS, operationsBitField, type Operation, type ResourceType } from './acl.js';
import type { AclAuthorizer } from './acl-authorizer.js';

/**
 * What request handling asks about permissions (Kafka's AuthHelper): with no authorizer every
 * request is allowed, except the controller and replica requests, which only the inter-broker
 * listener accepts (safe by default); with AclAuthorizer every check goes to the ACLs.
 */
export class AuthHelper {
  readonly authorizer: AclAuthorizer | null;
  readonly #interBrokerListener: string;

  constructor(authorizer: AclAuthorizer | null, interBrokerListener: string) {
    this.authorizer = authorizer;
    this.#interBrokerListener = interBrokerListener;
  }

  authorize(ctx: RequestContext, op: Operation, resourceType: ResourceType, name: string, logIfDenied = true): boolean {
    if (!this.authorizer) return true;
    return this.authorizer.authorize({ principal: ctx.conn.principal, clientHost: ctx.conn.clientHost }, op, resourceType, name, logIfDenied);
  }

  authorizeCluster(ctx: RequestContext, op: Operation, logIfDenied = true): boolean {
    return this.authorize(ctx, op, 'Cluster', CLUSTER_RESOURCE_NAME, logIfDenied);
  }

  /**
   * LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown, replica fetches: Cluster
   * ClusterAction with an authorizer; without one, only requests on the inter-broker listener.
   */
  clusterAction(ctx: RequestContext): boolean {
    if (this.authorizer) return this.authorizeCluster(ctx, 'ClusterAction');
    return ctx.conn.listenerName === this.#interBrokerListener;
  }

  /** Whether `op` is allowed on some resource of the type (InitProducerId: Write on any topic). */
  authorizeByResourceType(ctx: RequestContext, op: Operation, resourceType: ResourceType): boolean {
    if (!this.authorizer) return true;
    return this.authorizer.authorizeByResourceType({ principal: ctx.conn.principal, clientHost: ctx.conn.clientHost }, op, resourceType);
  }

  /**
   * The operations the request's principal may do on a resource, as the bit field Metadata (v8+) and
   * DescribeGroups (v3+) return when asked: every supported operation without an authorizer (Kafka's rule).
   */
  authorizedOperations(ctx: RequestContext, resourceType: ResourceType, name: string): number {
    return operationsBitField(SUPPORTED_OPERATIONS[resourceType].filter((op) => this.authorize(ctx, op, resourceType, name, false)));
  }

  /** The names among `names` the request may use for `op` (each checked once). */
  filterAuthorized(ctx: RequestContext, op: Operation, resourceType: ResourceType, names: Iterable<string>, logIfDenied = true): Set<string> {
    const allowed = new Set<string>();
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (this.authorize(ctx, op, resourceType, name, logIfDenied)) allowed.add(name);
    }
    return allowed;
  }
}
