import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { errors, int, noParams } from '../ops-schemas.js';

const FILTERS = ['under-replicated', 'offline', 'not-preferred-leader'] as const;
type Filter = (typeof FILTERS)[number];

const intList = { type: 'array', items: int } as const;

const partitionsSchema = {
  params: noParams,
  querystring: { type: 'object', additionalProperties: false, properties: { only: { type: 'string', enum: FILTERS } } },
  response: {
    200: {
      type: 'object',
      required: ['total', 'underReplicated', 'offline', 'notPreferredLeader', 'partitions'],
      properties: {
        total: int,
        underReplicated: int,
        offline: int,
        notPreferredLeader: int,
        partitions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['topic', 'partition', 'leader', 'replicas', 'isr', 'offlineReplicas', 'underReplicated', 'offline', 'preferredLeader'],
            properties: {
              topic: { type: 'string' },
              partition: int,
              leader: int,
              replicas: intList,
              isr: intList,
              offlineReplicas: intList,
              underReplicated: { type: 'boolean' },
              offline: { type: 'boolean' },
              preferredLeader: { type: 'boolean' },
            },
          },
        },
      },
    },
    ...errors,
  },
} as const;

/**
 * GET /v1/partitions: every partition's leadership state from this broker's metadata, with the counts
 * kafka-topics --describe filters by (--under-replicated-partitions, --unavailable-partitions) and the
 * partitions whose leader is not their preferred replica. `?only=` keeps one kind.
 */
export function partitionHealthRoutes(app: FastifyInstance, { server }: AdminContext): void {
  app.get<{ Querystring: { only?: Filter } }>('/v1/partitions', { schema: partitionsSchema }, async (request) => {
    const cache = server.metadataCache;
    const all = cache.allTopics().sort().flatMap((topic) =>
      cache
        .partitions(topic)
        .slice()
        .sort((a, b) => a.partition - b.partition)
        .map((p) => {
          const offline = p.leader < 0 || !cache.isBrokerAlive(p.leader);
          return {
            topic,
            partition: p.partition,
            leader: p.leader,
            replicas: p.replicas,
            isr: p.isr,
            offlineReplicas: p.offlineReplicas,
            underReplicated: p.isr.length < p.replicas.length,
            offline,
            preferredLeader: p.replicas.length > 0 && p.leader === p.replicas[0],
          };
        }),
    );
    const keep: Record<Filter, (p: (typeof all)[number]) => boolean> = {
      'under-replicated': (p) => p.underReplicated,
      offline: (p) => p.offline,
      'not-preferred-leader': (p) => !p.offline && !p.preferredLeader,
    };
    const only = request.query.only;
    return {
      total: all.length,
      underReplicated: all.filter(keep['under-replicated']).length,
      offline: all.filter(keep.offline).length,
      notPreferredLeader: all.filter(keep['not-preferred-leader']).length,
      partitions: only ? all.filter(keep[only]) : all,
    };
  });
}
