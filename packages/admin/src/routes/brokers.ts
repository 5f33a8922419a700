import type { FastifyInstance } from 'fastify';
import type { KafkaServer } from '@gregor/broker';
import type { AdminContext } from '../admin-context.js';
import { AdminError } from '../errors.js';
import { brokerSchema, errors, int, noParams, noQuery, numericParam } from '../ops-schemas.js';

const brokersSchema = {
  params: noParams,
  querystring: noQuery,
  response: {
    200: { type: 'object', required: ['controllerId', 'brokers'], properties: { controllerId: int, brokers: { type: 'array', items: brokerSchema } } },
    ...errors,
  },
} as const;

const brokerByIdSchema = {
  params: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: numericParam } },
  querystring: noQuery,
  response: { 200: brokerSchema, ...errors },
} as const;

const controllerSchema = {
  params: noParams,
  querystring: noQuery,
  response: {
    200: {
      type: 'object',
      required: ['controllerId', 'controllerEpoch', 'metadataControllerId', 'thisBrokerIsController'],
      properties: {
        /** From the /controller znode: the truth. */
        controllerId: { type: ['integer', 'null'] },
        controllerEpoch: { type: ['integer', 'null'] },
        /** What this broker's metadata says (lags the znode by one UpdateMetadata). */
        metadataControllerId: int,
        thisBrokerIsController: { type: 'boolean' },
      },
    },
    ...errors,
  },
} as const;

/** GET /v1/brokers, /v1/brokers/:id (live brokers with their partition counts), GET /v1/controller. */
export function brokerRoutes(app: FastifyInstance, { server }: AdminContext): void {
  app.get('/v1/brokers', { schema: brokersSchema }, async () => ({
    controllerId: server.metadataCache.controllerId,
    brokers: server.metadataCache.aliveBrokers().map((b) => describeBroker(server, b.id)!),
  }));

  app.get<{ Params: { id: string } }>('/v1/brokers/:id', { schema: brokerByIdSchema }, async (request) => {
    const id = Number(request.params.id);
    const broker = describeBroker(server, id);
    if (!broker) throw new AdminError('GREGOR_ERR_UNKNOWN_BROKER', `Broker ${id} is not alive in this broker's metadata.`);
    return broker;
  });

  app.get('/v1/controller', { schema: controllerSchema }, async () => {
    const [controllerId, epoch] = await Promise.all([server.zk.getControllerId(), server.zk.getControllerEpoch()]);
    return {
      controllerId,
      controllerEpoch: epoch?.epoch ?? null,
      metadataControllerId: server.metadataCache.controllerId,
      thisBrokerIsController: server.controller.isActive,
    };
  });
}

function describeBroker(server: KafkaServer, id: number) {
  const cache = server.metadataCache;
  const b = cache.aliveBroker(id);
  if (!b) return null;
  let leaderPartitions = 0;
  let replicaPartitions = 0;
  for (const topic of cache.allTopics()) {
    for (const p of cache.partitions(topic)) {
      if (p.leader === id) leaderPartitions++;
      if (p.replicas.includes(id)) replicaPartitions++;
    }
  }
  return { id, rack: b.rack, endpoints: b.endpoints, isController: cache.controllerId === id, leaderPartitions, replicaPartitions };
}
