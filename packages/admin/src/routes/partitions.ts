import { ErrorCode } from '@gregor/common';
import {
  preferredReplicaElectionPath,
  reassignPartitionsPath,
  ZkError,
  ZkErrorCode,
  type PartitionReassignment,
  type TopicPartition,
} from '@gregor/zookeeper';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { AdminError, fromKafkaError } from '../errors.js';
import { brokerIdSchema, errors, int, noParams, noQuery, partitionIdSchema, topicPartitionSchema } from '../ops-schemas.js';
import { checkTopicName } from '../topic-view.js';

const MAX_PARTITIONS_PER_REQUEST = 10_000;

const electionBody = {
  type: 'object',
  additionalProperties: false,
  properties: { partitions: { type: 'array', minItems: 1, maxItems: MAX_PARTITIONS_PER_REQUEST, items: topicPartitionSchema } },
} as const;

const partitionStatus = {
  type: 'object',
  required: ['topic', 'partition', 'leader', 'replicas', 'isr'],
  properties: {
    topic: { type: 'string' },
    partition: int,
    leader: int,
    replicas: { type: 'array', items: int },
    isr: { type: 'array', items: int },
    targetReplicas: { type: 'array', items: int },
    done: { type: 'boolean' },
  },
} as const;

const progress = {
  type: 'object',
  required: ['inProgress', 'partitions'],
  properties: { inProgress: { type: 'boolean' }, partitions: { type: 'array', items: partitionStatus } },
} as const;

const startElectionSchema = { params: noParams, querystring: noQuery, body: electionBody, response: { 202: progress, ...errors } } as const;
const electionStatusSchema = { params: noParams, querystring: noQuery, response: { 200: progress, ...errors } } as const;

export interface ElectionBody {
  partitions?: TopicPartition[];
}

export interface ReassignmentBody {
  partitions: PartitionReassignment[];
}

const startReassignmentSchema = {
  params: noParams,
  querystring: noQuery,
  body: {
    type: 'object',
    required: ['partitions'],
    additionalProperties: false,
    properties: {
      partitions: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_PARTITIONS_PER_REQUEST,
        items: {
          type: 'object',
          required: ['topic', 'partition', 'replicas'],
          additionalProperties: false,
          properties: {
            topic: { type: 'string', minLength: 1, maxLength: 249 },
            partition: partitionIdSchema,
            replicas: { type: 'array', minItems: 1, maxItems: 1000, uniqueItems: true, items: brokerIdSchema },
          },
        },
      },
    },
  },
  response: { 202: progress, ...errors },
} as const;

const reassignmentStatusSchema = { params: noParams, querystring: noQuery, response: { 200: progress, ...errors } } as const;

/**
 * Preferred-replica election and partition reassignment, the ZooKeeper-era way: the request is the
 * /admin/preferred_replica_election or /admin/reassign_partitions znode with Kafka's JSON; the
 * controller acts on it and deletes the znode when done. Progress reads the znode and the metadata.
 */
export function partitionRoutes(app: FastifyInstance, { server }: AdminContext): void {
  const status = (tp: TopicPartition, target?: number[]) => {
    const s = server.metadataCache.partitions(tp.topic).find((p) => p.partition === tp.partition);
    const base = { topic: tp.topic, partition: tp.partition, leader: s?.leader ?? -1, replicas: s?.replicas ?? [], isr: s?.isr ?? [] };
    if (!target) return { ...base, done: s !== undefined && s.replicas.length > 0 && s.leader === s.replicas[0] };
    const done = s !== undefined && sameList(s.replicas, target) && target.every((b) => s.isr.includes(b));
    return { ...base, targetReplicas: target, done };
  };

  /** Throws GREGOR_ERR_UNKNOWN_PARTITION unless this broker's metadata has the partition. */
  const checkPartition = (tp: TopicPartition) => {
    checkTopicName(tp.topic);
    if (!server.metadataCache.partitions(tp.topic).some((p) => p.partition === tp.partition)) {
      throw new AdminError('GREGOR_ERR_UNKNOWN_PARTITION', `Partition ${tp.topic}-${tp.partition} does not exist.`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  };

  app.post<{ Body: ElectionBody }>('/v1/partitions/preferred-election', { schema: startElectionSchema }, async (request, reply) => {
    const partitions = request.body.partitions ?? allPartitions(server);
    for (const tp of partitions) checkPartition(tp);
    await createAdminZnode(() => server.zk.createPreferredReplicaElection(dedupe(partitions)), preferredReplicaElectionPath, 'A preferred replica election');
    return reply.code(202).send({ inProgress: true, partitions: partitions.map((tp) => status(tp)) });
  });

  app.get('/v1/partitions/preferred-election', { schema: electionStatusSchema }, async () => {
    const pending = await server.zk.getPreferredReplicaElection();
    return { inProgress: pending !== null, partitions: (pending ?? []).map((tp) => status(tp)) };
  });

  app.post<{ Body: ReassignmentBody }>('/v1/partitions/reassignments', { schema: startReassignmentSchema }, async (request, reply) => {
    const { partitions } = request.body;
    const registered = new Set(await server.zk.getBrokerIds());
    const seen = new Set<string>();
    for (const r of partitions) {
      checkPartition(r);
      const key = `${r.topic}-${r.partition}`;
      if (seen.has(key)) throw fromKafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Partition ${key} appears twice.`);
      seen.add(key);
      const unknown = r.replicas.filter((b) => !registered.has(b));
      if (unknown.length > 0) throw fromKafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Brokers ${unknown.join(',')} are not registered (partition ${key}).`);
    }
    await createAdminZnode(() => server.zk.createPartitionReassignment(partitions), reassignPartitionsPath, 'A partition reassignment');
    return reply.code(202).send({ inProgress: true, partitions: partitions.map((r) => status(r, r.replicas)) });
  });

  app.get('/v1/partitions/reassignments', { schema: reassignmentStatusSchema }, async () => {
    const pending = await server.zk.getPartitionReassignment();
    return { inProgress: pending !== null, partitions: (pending ?? []).map((r) => status(r, r.replicas)) };
  });
}

async function createAdminZnode(create: () => Promise<void>, path: string, what: string): Promise<void> {
  try {
    await create();
  } catch (err) {
    if (err instanceof ZkError && err.zkCode === ZkErrorCode.NODE_EXISTS) {
      throw new AdminError('GREGOR_ERR_OPERATION_IN_PROGRESS', `${what} is already in progress (${path} exists); wait for it to finish.`);
    }
    throw err;
  }
}

function allPartitions(server: AdminContext['server']): TopicPartition[] {
  const cache = server.metadataCache;
  return cache.allTopics().flatMap((topic) => cache.partitions(topic).map((p) => ({ topic, partition: p.partition })));
}

function dedupe(partitions: TopicPartition[]): TopicPartition[] {
  const byKey = new Map(partitions.map((tp) => [`${tp.topic}\u0000${tp.partition}`, tp]));
  return [...byKey.values()];
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
