/**
 * JSON schemas of every route: requests are validated with them (unknown fields rejected, no type
 * coercion) and responses serialized with them, so nothing outside a schema ever leaves the broker.
 */

/** Upper bounds that keep one request from asking the broker to build huge assignments. */
export const MAX_PARTITIONS = 100_000;
export const MAX_REPLICATION_FACTOR = 1_000;

const brokerId = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;
const brokerIdList = { type: 'array', items: brokerId, minItems: 1, maxItems: MAX_REPLICATION_FACTOR } as const;
const int = { type: 'integer' } as const;
const intList = { type: 'array', items: int } as const;
const nullableInt = { type: ['integer', 'null'] } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

export const errorResponse = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, kafkaErrorCode: int },
    },
  },
} as const;

const errors = { '4xx': errorResponse, '5xx': errorResponse } as const;

/** No route takes query parameters; an unknown one is an error rather than silently ignored. */
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;
const noParams = noQuery;

/** Path parameter of the topic routes: any string; its legality is checked as Kafka checks it (GREGOR_ERR_INVALID_TOPIC). */
export const topicParams = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string' } },
} as const;

const partitionDescription = {
  type: 'object',
  required: ['partition', 'leader', 'leaderEpoch', 'replicas', 'isr', 'offlineReplicas', 'logStartOffset', 'highWatermark', 'logEndOffset'],
  properties: {
    partition: int,
    leader: int,
    leaderEpoch: int,
    replicas: intList,
    isr: intList,
    offlineReplicas: intList,
    logStartOffset: nullableInt,
    highWatermark: nullableInt,
    logEndOffset: nullableInt,
    /** Set (with null offsets) when the leader could not be asked for them. */
    offsetsError: { type: 'string' },
    replicaStates: {
      type: 'array',
      items: {
        type: 'object',
        required: ['brokerId', 'inSync', 'online', 'logEndOffset', 'highWatermark', 'lag', 'lastCaughtUpMsAgo'],
        properties: {
          brokerId: int,
          inSync: { type: 'boolean' },
          online: { type: 'boolean' },
          logEndOffset: nullableInt,
          highWatermark: nullableInt,
          lag: nullableInt,
          lastCaughtUpMsAgo: nullableInt,
        },
      },
    },
    replicaStatesSource: { type: 'string', enum: ['leader', 'partial'] },
  },
} as const;

export const topicDescription = {
  type: 'object',
  required: ['name', 'internal', 'configs', 'partitions'],
  properties: {
    name: { type: 'string' },
    internal: { type: 'boolean' },
    configs: stringMap,
    partitions: { type: 'array', items: partitionDescription },
  },
} as const;

/** Answer of a write that was accepted but whose outcome did not show in the metadata in time. */
const pending = {
  type: 'object',
  required: ['name', 'status', 'message'],
  properties: { name: { type: 'string' }, status: { type: 'string', enum: ['pending'] }, message: { type: 'string' } },
} as const;

const validated = {
  type: 'object',
  required: ['name', 'validateOnly'],
  properties: { name: { type: 'string' }, validateOnly: { type: 'boolean' } },
} as const;

const healthBody = {
  type: 'object',
  required: ['status', 'brokerId', 'state'],
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    brokerId: int,
    state: { type: 'string' },
    zookeeperSessionHealthy: { type: 'boolean' },
    error: errorResponse.properties.error,
  },
} as const;

export const healthzSchema = {
  params: noParams,
  querystring: noQuery,
  response: { 200: healthBody, 503: healthBody, ...errors },
} as const;

export const clusterSchema = {
  params: noParams,
  querystring: noQuery,
  response: {
    200: {
      type: 'object',
      required: ['clusterId', 'controllerId', 'brokers'],
      properties: {
        clusterId: { type: ['string', 'null'] },
        controllerId: int,
        brokers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'host', 'port', 'rack', 'endpoints'],
            properties: {
              id: int,
              host: { type: 'string' },
              port: int,
              rack: { type: ['string', 'null'] },
              endpoints: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['listenerName', 'host', 'port'],
                  properties: { listenerName: { type: 'string' }, host: { type: 'string' }, port: int },
                },
              },
            },
          },
        },
      },
    },
    ...errors,
  },
} as const;

export const listTopicsSchema = {
  params: noParams,
  /** stats=true adds messages, sizeBytes and highWatermarkSum per topic (ListOffsets to every leader, DescribeLogDirs to every broker). */
  querystring: { type: 'object', additionalProperties: false, properties: { stats: { type: 'string', enum: ['true', 'false'] } } },
  response: {
    200: {
      type: 'object',
      required: ['topics'],
      properties: {
        topics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'partitions', 'replicationFactor', 'internal'],
            properties: {
              name: { type: 'string' },
              partitions: int,
              replicationFactor: int,
              internal: { type: 'boolean' },
              messages: nullableInt,
              sizeBytes: nullableInt,
              highWatermarkSum: nullableInt,
            },
          },
        },
      },
    },
    ...errors,
  },
} as const;

export const describeTopicSchema = {
  params: topicParams,
  /** peers=false: no request to the partitions' leaders' admin servers (replica states of partitions led elsewhere stay partial). */
  querystring: { type: 'object', additionalProperties: false, properties: { peers: { type: 'string', enum: ['true', 'false'] } } },
  response: { 200: topicDescription, ...errors },
} as const;

export interface CreateTopicBody {
  name: string;
  partitions?: number;
  replicationFactor?: number;
  assignments?: Record<string, number[]>;
  configs?: Record<string, string>;
  validateOnly?: boolean;
}

export const createTopicSchema = {
  params: noParams,
  querystring: noQuery,
  body: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      // Out-of-range values below the maximum (0, negatives) reach the broker's own checks, which
      // answer with Kafka's codes (INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR).
      partitions: { type: 'integer', minimum: -2_147_483_648, maximum: MAX_PARTITIONS },
      replicationFactor: { type: 'integer', minimum: -32_768, maximum: MAX_REPLICATION_FACTOR },
      assignments: {
        type: 'object',
        maxProperties: MAX_PARTITIONS,
        patternProperties: { '^(0|[1-9][0-9]{0,5})$': brokerIdList },
        additionalProperties: false,
      },
      configs: { type: 'object', maxProperties: 100, additionalProperties: { type: 'string', maxLength: 10_000 } },
      validateOnly: { type: 'boolean' },
    },
  },
  response: { 200: validated, 201: topicDescription, 202: pending, ...errors },
} as const;

export const deleteTopicSchema = {
  params: topicParams,
  querystring: noQuery,
  response: {
    200: { type: 'object', required: ['deleted'], properties: { deleted: { type: 'string' } } },
    202: { type: 'object', required: ['deleted', 'status'], properties: { deleted: { type: 'string' }, status: { type: 'string', enum: ['pending'] } } },
    ...errors,
  },
} as const;

export interface CreatePartitionsBody {
  count: number;
  assignments?: number[][];
}

export const createPartitionsSchema = {
  params: topicParams,
  querystring: noQuery,
  body: {
    type: 'object',
    required: ['count'],
    additionalProperties: false,
    properties: {
      count: { type: 'integer', minimum: 1, maximum: MAX_PARTITIONS },
      assignments: { type: 'array', maxItems: MAX_PARTITIONS, items: brokerIdList },
    },
  },
  response: { 200: topicDescription, 202: pending, ...errors },
} as const;
