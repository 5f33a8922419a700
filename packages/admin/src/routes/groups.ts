import { ErrorCode } from '@gregor/common';
import { describeGroup, listGroups } from '@gregor/consumer';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { AdminError, fromKafkaError } from '../errors.js';
import { describeGroupSchema, listGroupsSchema } from '../group-schemas.js';
import { readPartitionOffsets } from '../partition-offsets.js';

/**
 * GET /v1/groups and /v1/groups/:id — consumer groups of the ZooKeeper consumer connector: members,
 * and per partition the owner, committed offset, log end offset (high watermark) and lag, read from
 * ZooKeeper and the partition leaders.
 */
export function groupRoutes(app: FastifyInstance, { server, leaders }: AdminContext): void {
  app.get('/v1/groups', { schema: listGroupsSchema }, async () => ({ groups: await listGroups(server.zk) }));

  app.get<{ Params: { id: string } }>('/v1/groups/:id', { schema: describeGroupSchema }, async (request) => {
    const id = request.params.id;
    if (id === '.' || id === '..') throw new AdminError('GREGOR_ERR_VALIDATION', `invalid group id "${id}"`);
    const group = await describeGroup(server.zk, id, async (topic, partitions) => {
      const states = server.metadataCache.partitions(topic).filter((s) => partitions.includes(s.partition));
      const offsets = await readPartitionOffsets(server, leaders, topic, states);
      return new Map([...offsets].flatMap(([p, o]) => (o.highWatermark === null ? [] : [[p, o.highWatermark] as const])));
    });
    if (!group) throw fromKafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group '${id}' does not exist.`);
    return group;
  });
}
