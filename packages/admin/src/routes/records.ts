import { fetchPartition, KafkaClient, listOffsets, Producer, type Acks } from '@gregor/client';
import { ErrorCode } from '@gregor/common';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { AdminError } from '../errors.js';
import { errors, int, numericParam } from '../ops-schemas.js';
import { checkTopicName, unknownTopic } from '../topic-view.js';

/** Debugging routes move a few records, never bulk data. */
export const MAX_RECORDS = 100;
const MAX_FETCH_BYTES = 256 * 1024;

const params = {
  type: 'object',
  required: ['name', 'partition'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, partition: numericParam },
} as const;

export interface ProduceBody {
  records: { key?: string | null; value: string | null; headers?: Record<string, string> }[];
  acks?: Acks;
}

const produceSchema = {
  params,
  querystring: { type: 'object', additionalProperties: false, properties: {} },
  body: {
    type: 'object',
    required: ['records'],
    additionalProperties: false,
    properties: {
      records: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_RECORDS,
        items: {
          type: 'object',
          required: ['value'],
          additionalProperties: false,
          properties: {
            key: { type: ['string', 'null'], maxLength: 10_000 },
            value: { type: ['string', 'null'], maxLength: 100_000 },
            headers: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 10_000 } },
          },
        },
      },
      acks: { type: 'integer', enum: [-1, 0, 1] },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['topic', 'partition', 'baseOffset', 'count'],
      properties: { topic: { type: 'string' }, partition: int, baseOffset: int, count: int },
    },
    ...errors,
  },
} as const;

const fetchSchema = {
  params,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      /** Default: the log start offset. */
      offset: numericParam,
      limit: { type: 'string', pattern: '^([1-9]|[1-9][0-9]|100)$' },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['topic', 'partition', 'highWatermark', 'logStartOffset', 'records', 'nextOffset'],
      properties: {
        topic: { type: 'string' },
        partition: int,
        highWatermark: int,
        logStartOffset: int,
        nextOffset: int,
        records: {
          type: 'array',
          items: {
            type: 'object',
            required: ['offset', 'timestamp', 'key', 'value', 'headers'],
            properties: {
              offset: int,
              timestamp: int,
              key: { type: ['string', 'null'] },
              value: { type: ['string', 'null'] },
              headers: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
            },
          },
        },
      },
    },
    ...errors,
  },
} as const;

/**
 * Produce and fetch a few records of one partition, for debugging (keys, values and headers as UTF-8
 * strings). The admin server uses its own Kafka client, bootstrapped on this broker's inter-broker
 * listener, so requests reach the partition's leader wherever it is.
 */
export function recordRoutes(app: FastifyInstance, { server }: AdminContext): void {
  let client: KafkaClient | null = null;
  let producer: Producer | null = null;
  const kafka = () => {
    if (!client) {
      const listener = server.config.interBrokerListenerName;
      const own = server.advertisedEndpoints().find((e) => e.listenerName === listener) ?? server.advertisedEndpoints()[0]!;
      client = new KafkaClient({
        brokers: `${own.host}:${own.port}`,
        clientId: 'gregor-admin-http',
        requestTimeoutMs: 10_000,
        metadataMaxAgeMs: 5_000,
        retries: 3,
        ...(server.interBrokerSecurity ? { security: server.interBrokerSecurity } : {}),
      });
      producer = new Producer(client, { acks: -1, retries: 3, requestTimeoutMs: 10_000, deliveryTimeoutMs: 20_000 });
    }
    return { client, producer: producer! };
  };
  app.addHook('onClose', async () => client?.close());

  /** The partition, checked against this broker's metadata. */
  const target = (name: string, rawPartition: string) => {
    checkTopicName(name);
    const partition = Number(rawPartition);
    const parts = server.metadataCache.partitions(name);
    if (parts.length === 0) throw unknownTopic(name);
    if (!parts.some((p) => p.partition === partition)) {
      throw new AdminError('GREGOR_ERR_UNKNOWN_PARTITION', `Partition ${name}-${partition} does not exist.`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    return partition;
  };

  app.post<{ Params: { name: string; partition: string }; Body: ProduceBody }>('/v1/topics/:name/partitions/:partition/records', { schema: produceSchema }, async (request) => {
    const { name } = request.params;
    const partition = target(name, request.params.partition);
    const { records, acks } = request.body;
    const sent = await kafka().producer.send({
      topic: name,
      ...(acks !== undefined ? { acks } : {}),
      messages: records.map((r) => ({ key: r.key ?? null, value: r.value, partition, ...(r.headers ? { headers: r.headers } : {}) })),
    });
    return { topic: name, partition, baseOffset: sent[0]?.offset ?? -1, count: sent.length };
  });

  app.get<{ Params: { name: string; partition: string }; Querystring: { offset?: string; limit?: string } }>(
    '/v1/topics/:name/partitions/:partition/records',
    { schema: fetchSchema },
    async (request) => {
      const { name } = request.params;
      const partition = target(name, request.params.partition);
      const limit = Number(request.query.limit ?? '10');
      const { client: c } = kafka();
      let offset = request.query.offset === undefined ? null : Number(request.query.offset);
      if (offset === null) offset = (await listOffsets(c, name, [{ partition, timestamp: -2 }])).get(partition)?.offset ?? 0;
      const result = await fetchPartition(c, { topic: name, partition, offset, maxWaitMs: 0, maxBytes: MAX_FETCH_BYTES, maxPartitionFetchBytes: MAX_FETCH_BYTES });
      const records = result.records.slice(0, limit);
      return {
        topic: name,
        partition,
        highWatermark: result.highWatermark,
        logStartOffset: result.logStartOffset,
        nextOffset: records.length > 0 ? records[records.length - 1]!.offset + 1 : offset,
        records: records.map((r) => ({
          offset: r.offset,
          timestamp: r.timestamp,
          key: r.key?.toString('utf8') ?? null,
          value: r.value?.toString('utf8') ?? null,
          headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value?.toString('utf8') ?? null])),
        })),
      };
    },
  );
}
