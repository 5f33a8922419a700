import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { clusterSchema } from '../schemas.js';

/** GET /v1/cluster: the live brokers and the controller as this broker's metadata cache sees them. */
export function clusterRoutes(app: FastifyInstance, { server }: AdminContext): void {
  app.get('/v1/cluster', { schema: clusterSchema }, async () => {
    const cache = server.metadataCache;
    // host/port: the inter-broker listener, the one listener every broker of a cluster must have.
    const listener = server.config.interBrokerListenerName;
    return {
      clusterId: server.clusterId,
      controllerId: cache.controllerId,
      brokers: cache.aliveBrokers().map((b) => {
        const main = b.endpoints.find((e) => e.listenerName === listener) ?? b.endpoints[0];
        return { id: b.id, host: main?.host ?? '', port: main?.port ?? -1, rack: b.rack, endpoints: b.endpoints };
      }),
    };
  });
}
