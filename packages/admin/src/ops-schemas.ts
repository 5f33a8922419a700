/** JSON schemas shared by the operations routes (brokers, controller, configs, partitions, records, metrics). */
import { errorResponse } from './schemas.js';

export const int = { type: 'integer' } as const;
export const nullableInt = { type: ['integer', 'null'] } as const;
export const errors = { '4xx': errorResponse, '5xx': errorResponse } as const;
export const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;
export const noParams = noQuery;
export const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
export const brokerIdSchema = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;
export const partitionIdSchema = { type: 'integer', minimum: 0, maximum: 2_147_483_646 } as const;
/** Path parameters arrive as strings; the routes parse them (no coercion anywhere else). */
export const numericParam = { type: 'string', pattern: '^(0|[1-9][0-9]{0,9})$' } as const;

export const endpointSchema = {
  type: 'object',
  required: ['listenerName', 'host', 'port'],
  properties: { listenerName: { type: 'string' }, host: { type: 'string' }, port: int },
} as const;

export const brokerSchema = {
  type: 'object',
  required: ['id', 'rack', 'endpoints', 'isController', 'leaderPartitions', 'replicaPartitions'],
  properties: {
    id: int,
    rack: { type: ['string', 'null'] },
    endpoints: { type: 'array', items: endpointSchema },
    isController: { type: 'boolean' },
    leaderPartitions: int,
    replicaPartitions: int,
  },
} as const;

export const topicPartitionSchema = {
  type: 'object',
  required: ['topic', 'partition'],
  additionalProperties: false,
  properties: { topic: { type: 'string', minLength: 1, maxLength: 249 }, partition: partitionIdSchema },
} as const;
