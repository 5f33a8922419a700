import { describeGroup, listGroups } from '@gregor/consumer';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { BrokerMetrics, MAX_LAG_GROUPS, type BrokerTrafficTotals, type GroupLagReader } from '../metrics.js';
import { errors, int, noParams } from '../ops-schemas.js';
import { getFromPeer, peerAdminUrl } from '../peer-admin.js';
import { readPartitionOffsets } from '../partition-offsets.js';

const nullableNumber = { type: ['number', 'null'] } as const;

const brokerTraffic = {
  type: 'object',
  required: ['brokerId', 'timestampMs', 'bytesIn', 'bytesOut', 'messagesIn', 'replicationBytesOut', 'error'],
  properties: {
    brokerId: int,
    /** When the broker read its counters (its clock); rates are differences between two answers. */
    timestampMs: nullableNumber,
    bytesIn: nullableNumber,
    bytesOut: nullableNumber,
    messagesIn: nullableNumber,
    replicationBytesOut: nullableNumber,
    /** Why the counters are null: the broker runs no HTTP admin, or it did not answer. */
    error: { type: ['string', 'null'] },
  },
} as const;

const trafficSchema = {
  params: noParams,
  querystring: { type: 'object', additionalProperties: false, properties: { local: { type: 'string', enum: ['true', 'false'] } } },
  response: { 200: { type: 'object', required: ['brokers'], properties: { brokers: { type: 'array', items: brokerTraffic } } }, ...errors },
} as const;

type TrafficEntry = (BrokerTrafficTotals & { error: null }) | { brokerId: number; timestampMs: null; bytesIn: null; bytesOut: null; messagesIn: null; replicationBytesOut: null; error: string };

/**
 * GET /metrics: the broker's metrics in Prometheus text format (no auth: reads only).
 * GET /v1/metrics/traffic: bytes in/out and messages in since start, of every live broker (each one's
 * own counters, read from its admin server; `?local=true` answers this broker's alone).
 */
export function metricsRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const metrics = new BrokerMetrics(ctx.server, groupLagReader(ctx));
  app.addHook('onClose', async () => metrics.detach());
  app.get('/metrics', { schema: { hide: true } as object }, async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });

  app.get<{ Querystring: { local?: 'true' | 'false' } }>('/v1/metrics/traffic', { schema: trafficSchema }, async (request) => {
    const own = { ...(await metrics.traffic()), error: null };
    if (request.query.local === 'true') return { brokers: [own] };
    const others = ctx.server.metadataCache.aliveBrokers().filter((b) => b.id !== ctx.server.brokerId);
    const unknown = (brokerId: number, error: string): TrafficEntry => ({ brokerId, timestampMs: null, bytesIn: null, bytesOut: null, messagesIn: null, replicationBytesOut: null, error });
    const peers = await Promise.all(
      others.map(async (b): Promise<TrafficEntry> => {
        try {
          const url = await peerAdminUrl(ctx, b.id);
          if (!url) return unknown(b.id, 'the broker runs no HTTP admin server (or on an OS-chosen port)');
          const answer = await getFromPeer<{ brokers: TrafficEntry[] }>(url, '/v1/metrics/traffic?local=true', request.headers.authorization);
          return answer.brokers.find((x) => x.brokerId === b.id) ?? unknown(b.id, `${url} answered for another broker`);
        } catch (err) {
          return unknown(b.id, (err as Error).message);
        }
      }),
    );
    return { brokers: [own, ...peers].sort((a, b) => a.brokerId - b.brokerId) };
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
