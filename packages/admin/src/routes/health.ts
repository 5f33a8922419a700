import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { healthzSchema } from '../schemas.js';

/** GET /healthz: 200 while the broker runs and its ZooKeeper session is healthy, else 503 (for load balancers and orchestrators). */
export function healthRoutes(app: FastifyInstance, { server }: AdminContext): void {
  app.get('/healthz', { schema: healthzSchema }, async (_request, reply) => {
    const sessionHealthy = server.session?.healthy === true;
    const running = server.state === 'RunningAsBroker';
    if (running && sessionHealthy) return { status: 'ok', brokerId: server.brokerId, state: server.state };
    const message = running ? 'The broker\'s ZooKeeper session is not healthy.' : `The broker is ${server.state}.`;
    return reply.code(503).send({
      status: 'unavailable',
      brokerId: server.brokerId,
      state: server.state,
      zookeeperSessionHealthy: sessionHealthy,
      error: { code: 'GREGOR_ERR_BROKER_NOT_READY', message },
    });
  });
}
