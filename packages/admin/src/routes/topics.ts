import { ErrorCode, errorName } from '@gregor/common';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { fromKafkaError } from '../errors.js';
import {
  createPartitionsSchema,
  createTopicSchema,
  deleteTopicSchema,
  describeTopicSchema,
  listTopicsSchema,
  type CreatePartitionsBody,
  type CreateTopicBody,
} from '../schemas.js';
import { withLeaderReplicaStates } from '../leader-replica-states.js';
import { topicStats } from '../topic-stats.js';
import { checkTopicName, describeTopic, listTopics } from '../topic-view.js';

interface TopicParams {
  name: string;
}

function failure(result: { errorCode: number; errorMessage: string | null }) {
  return fromKafkaError(result.errorCode, result.errorMessage ?? errorName(result.errorCode));
}

/**
 * Topic routes. Writes go through the broker's AdminManager (as CreateTopics, DeleteTopics and
 * CreatePartitions requests do) and answer once this broker's metadata shows the outcome; when that
 * takes longer than the write timeout but ZooKeeper shows the change was made, they answer 202.
 */
export function topicRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { server, leaders, writeTimeoutMs } = ctx;

  app.get<{ Querystring: { stats?: 'true' | 'false' } }>('/v1/topics', { schema: listTopicsSchema }, async (request) => {
    const topics = listTopics(server);
    if (request.query.stats !== 'true') return { topics };
    const stats = await topicStats(ctx);
    return { topics: topics.map((t) => ({ ...t, ...(stats.get(t.name) ?? { messages: null, sizeBytes: null, highWatermarkSum: null }) })) };
  });

  app.get<{ Params: TopicParams; Querystring: { peers?: 'true' | 'false' } }>('/v1/topics/:name', { schema: describeTopicSchema }, async (request) => {
    const described = await describeTopic(server, leaders, request.params.name);
    return request.query.peers === 'false' ? described : withLeaderReplicaStates(ctx, described, request.headers.authorization);
  });

  app.post<{ Body: CreateTopicBody }>('/v1/topics', { schema: createTopicSchema }, async (request, reply) => {
    const startedAt = Date.now();
    const body = request.body;
    const validateOnly = body.validateOnly ?? false;
    checkTopicName(body.name);
    // Absent means "the broker's default" (-1 on the wire); an explicit value must be positive.
    if (body.partitions !== undefined && body.partitions < 1) throw fromKafkaError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.');
    if (body.replicationFactor !== undefined && body.replicationFactor < 1) {
      throw fromKafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.');
    }
    const assignments = body.assignments ? new Map(Object.entries(body.assignments).map(([p, replicas]) => [Number(p), replicas])) : null;
    const [result] = await server.adminManager.createTopics(
      [{ name: body.name, numPartitions: body.partitions ?? -1, replicationFactor: body.replicationFactor ?? -1, assignments, configs: body.configs ?? {} }],
      writeTimeoutMs,
      validateOnly,
    );
    if (result!.errorCode === ErrorCode.NONE && validateOnly) return reply.code(200).send({ name: body.name, validateOnly: true });
    const expected = assignments?.size || body.partitions || server.config.numPartitions;
    if (result!.errorCode === ErrorCode.NONE && (await allLeadersKnown(ctx, body.name, expected, startedAt))) {
      return reply.code(201).send(await describeTopic(server, leaders, body.name));
    }
    if (result!.errorCode === ErrorCode.NONE || (result!.errorCode === ErrorCode.REQUEST_TIMED_OUT && (await server.zk.getTopicAssignment(body.name)))) {
      return reply.code(202).send({ name: body.name, status: 'pending', message: 'The topic was created; not all of its partitions have a leader yet.' });
    }
    throw failure(result!);
  });

  app.delete<{ Params: TopicParams }>('/v1/topics/:name', { schema: deleteTopicSchema }, async (request, reply) => {
    const { name } = request.params;
    checkTopicName(name);
    const [result] = await server.adminManager.deleteTopics([name], writeTimeoutMs);
    if (result!.errorCode === ErrorCode.NONE) return reply.code(200).send({ deleted: name });
    if (result!.errorCode === ErrorCode.REQUEST_TIMED_OUT && (await deletionStarted(ctx, name))) {
      return reply.code(202).send({ deleted: name, status: 'pending' });
    }
    throw failure(result!);
  });

  app.post<{ Params: TopicParams; Body: CreatePartitionsBody }>('/v1/topics/:name/partitions', { schema: createPartitionsSchema }, async (request, reply) => {
    const startedAt = Date.now();
    const { name } = request.params;
    const { count, assignments } = request.body;
    checkTopicName(name);
    const [result] = await server.adminManager.createPartitions([{ name, count, assignments: assignments ?? null }], writeTimeoutMs, false);
    if (result!.errorCode === ErrorCode.NONE && (await allLeadersKnown(ctx, name, count, startedAt))) {
      return reply.code(200).send(await describeTopic(server, leaders, name));
    }
    if (result!.errorCode === ErrorCode.NONE || (result!.errorCode === ErrorCode.REQUEST_TIMED_OUT && ((await server.zk.getTopicAssignment(name))?.assignment.partitions.size ?? 0) >= count)) {
      return reply.code(202).send({ name, status: 'pending', message: `The topic now has ${count} partitions; some have no leader yet.` });
    }
    throw failure(result!);
  });
}

/**
 * Waits, within the write timeout, until this broker's metadata has `count` partitions of the topic,
 * each with a leader. The AdminManager's own wait can end early: LeaderAndIsr for the partitions this
 * broker hosts may arrive before the UpdateMetadata that carries the others.
 */
function allLeadersKnown({ server, writeTimeoutMs }: AdminContext, name: string, count: number, startedAt: number): Promise<boolean> {
  const cache = server.metadataCache;
  const ready = () => {
    const parts = cache.partitions(name);
    return parts.length >= count && parts.every((p) => p.leader >= 0);
  };
  return cache.waitFor(ready, writeTimeoutMs - (Date.now() - startedAt));
}

/** The topic is marked for deletion or already gone from ZooKeeper. */
async function deletionStarted({ server }: AdminContext, name: string): Promise<boolean> {
  if ((await server.zk.getTopicsMarkedForDeletion()).includes(name)) return true;
  return (await server.zk.getTopicAssignment(name)) === null;
}
