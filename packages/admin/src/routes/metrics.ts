import { describeGroup, listGroups } from '@gregor/consumer';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { BrokerMetrics, MAX_LAG_GROUPS, type GroupLagReader } from '../metrics.js';
import { readPartitionOffsets } from '../partition-offsets.js';

/** GET /metrics: the broker's metrics in Prometheus text format (no auth: reads only). */
export function metricsRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const metrics = new BrokerMetrics(ctx.server, groupLagReader(ctx));
  app.addHook('onClose', async () => metrics.detach());
  app.get('/metrics', { schema: { hide: true } as object }, async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
}

/** Lag per group and partition, as GET /v1/groups/:id computes it (committed offsets in ZooKeeper, HW from the leaders). */
function groupLagReader({ server, leaders }: AdminContext): GroupLagReader {
  return async () => {
    const out: { group: string; topic: string; partition: number; lag: number }[] = [];
    for (const group of (await listGroups(server.zk)).slice(0, MAX_LAG_GROUPS)) {
      const described = await describeGroup(server.zk, group, async (topic, partitions) => {
        const states = server.metadataCache.partitions(topic).filter((s) => partitions.includes(s.partition));
        const offsets = await readPartitionOffsets(server, leaders, topic, states);
        return new Map([...offsets].flatMap(([p, o]) => (o.highWatermark === null ? [] : [[p, o.highWatermark] as const])));
      });
      for (const p of described?.partitions ?? []) if (p.lag !== null) out.push({ group, topic: p.topic, partition: p.partition, lag: p.lag });
    }
    return out;
  };
}
