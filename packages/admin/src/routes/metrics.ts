import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { BrokerMetrics } from '../metrics.js';

/** GET /metrics: the broker's metrics in Prometheus text format (no auth: reads only). */
export function metricsRoutes(app: FastifyInstance, { server }: AdminContext): void {
  const metrics = new BrokerMetrics(server);
  app.addHook('onClose', async () => metrics.detach());
  app.get('/metrics', { schema: { hide: true } as object }, async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
}
