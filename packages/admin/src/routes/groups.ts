import { ErrorCode } from '@gregor/common';
import { describeGroup, listGroups, type GroupPartition } from '@gregor/consumer';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { describeCoordinatorGroup, listCoordinatorGroups, type CoordinatorGroup } from '../coordinator-groups.js';
import { AdminError, fromKafkaError } from '../errors.js';
import { describeGroupSchema, listGroupsSchema, resetOffsetsSchema } from '../group-schemas.js';
import { resetGroupOffsets, type GroupKind, type ResetTarget } from '../group-offsets-reset.js';
import { readPartitionOffsets } from '../partition-offsets.js';

interface ResetBody {
  to: ResetTarget;
  topics?: string[];
  kind?: GroupKind;
  dryRun?: boolean;
}

/**
 * Consumer groups of both kinds: the ZooKeeper consumer connector's (/consumers in ZooKeeper) and the
 * broker-side group coordinator's (kafkajs, kcat -G, the Reader; offsets in __consumer_offsets).
 * GET /v1/groups and /v1/groups/:id show members, owners, committed offsets, log end offsets (high
 * watermarks) and lag; POST /v1/groups/:id/offsets/reset moves an inactive group's offsets.
 */
export function groupRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { server } = ctx;

  app.get('/v1/groups', { schema: listGroupsSchema }, async () => {
    const [zkGroups, coordinator] = await Promise.all([listGroups(server.zk), listCoordinatorGroups(ctx)]);
    const entries = [...zkGroups.map((group) => ({ group, kind: 'zookeeper' as const })), ...coordinator.groups];
    const groups = [...new Set(entries.map((e) => e.group))].sort();
    return coordinator.unavailable.length > 0 ? { groups, entries, unavailableCoordinators: coordinator.unavailable } : { groups, entries };
  });

  app.get<{ Params: { id: string }; Querystring: { kind?: GroupKind } }>('/v1/groups/:id', { schema: describeGroupSchema }, async (request) => {
    const id = validGroupId(request.params.id);
    const kind = request.query.kind;
    if (kind !== 'coordinator') {
      const group = await describeGroup(server.zk, id, async (topic, partitions) => {
        const offsets = await endOffsets(ctx, topic, partitions);
        return new Map([...offsets].flatMap(([p, o]) => (o === null ? [] : [[p, o] as const])));
      });
      if (group) return { ...group, kind: 'zookeeper' };
    }
    if (kind !== 'zookeeper') {
      const group = await describeCoordinatorGroup(ctx, id);
      if (group) return { ...group, kind: 'coordinator', committed: undefined, partitions: await coordinatorPartitions(ctx, group) };
    }
    throw fromKafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group '${id}' does not exist.`);
  });

  app.post<{ Params: { id: string }; Body: ResetBody }>('/v1/groups/:id/offsets/reset', { schema: resetOffsetsSchema }, async (request) => {
    const id = validGroupId(request.params.id);
    const { to, topics, kind, dryRun } = request.body;
    return resetGroupOffsets(ctx, id, to, topics, kind, dryRun ?? false);
  });
}

function validGroupId(id: string): string {
  if (id === '.' || id === '..') throw new AdminError('GREGOR_ERR_VALIDATION', `invalid group id "${id}"`);
  return id;
}

/** High watermarks (what a consumer can reach) of some partitions of a topic; null when the leader did not answer. */
async function endOffsets(ctx: AdminContext, topic: string, partitions: readonly number[]): Promise<Map<number, number | null>> {
  const states = ctx.server.metadataCache.partitions(topic).filter((s) => partitions.includes(s.partition));
  const offsets = await readPartitionOffsets(ctx.server, ctx.leaders, topic, states);
  return new Map([...offsets].map(([p, o]) => [p, o.highWatermark]));
}

/** Per partition the group committed or was assigned: owner (member id), committed offset, log end offset and lag. */
async function coordinatorPartitions(ctx: AdminContext, group: CoordinatorGroup): Promise<GroupPartition[]> {
  const owners = new Map<string, string>();
  const byTopic = new Map<string, Set<number>>();
  const add = (topic: string, partition: number) => byTopic.set(topic, (byTopic.get(topic) ?? new Set()).add(partition));
  for (const m of group.members) {
    for (const a of m.assignment ?? []) {
      for (const p of a.partitions) {
        owners.set(`${a.topic}\u0000${p}`, m.memberId);
        add(a.topic, p);
      }
    }
  }
  const committed = new Map(group.committed.map((c) => [`${c.topic}\u0000${c.partition}`, c.offset]));
  for (const c of group.committed) add(c.topic, c.partition);
  const result: GroupPartition[] = [];
  for (const topic of [...byTopic.keys()].sort()) {
    const partitions = [...byTopic.get(topic)!].sort((a, b) => a - b);
    const ends = ctx.server.metadataCache.contains(topic) ? await endOffsets(ctx, topic, partitions) : new Map<number, number | null>();
    for (const partition of partitions) {
      const key = `${topic}\u0000${partition}`;
      const committedOffset = committed.get(key) ?? null;
      const logEndOffset = ends.get(partition) ?? null;
      const lag = committedOffset !== null && logEndOffset !== null ? Math.max(0, logEndOffset - committedOffset) : null;
      result.push({ topic, partition, owner: owners.get(key) ?? null, committedOffset, logEndOffset, lag });
    }
  }
  return result;
}
