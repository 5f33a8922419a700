import { errorResponse } from './schemas.js';

/** Schemas of the consumer-group routes (old ZooKeeper consumer groups, /consumers in ZooKeeper). */
const nullableInt = { type: ['integer', 'null'] } as const;
const errors = { '4xx': errorResponse, '5xx': errorResponse } as const;

const member = {
  type: 'object',
  required: ['consumerId', 'pattern', 'subscription', 'timestamp'],
  properties: {
    consumerId: { type: 'string' },
    pattern: { type: 'string', enum: ['static', 'white_list', 'black_list'] },
    subscription: { type: 'object', additionalProperties: { type: 'integer' } },
    timestamp: { type: 'integer' },
  },
} as const;

const partition = {
  type: 'object',
  required: ['topic', 'partition', 'owner', 'committedOffset', 'logEndOffset', 'lag'],
  properties: {
    topic: { type: 'string' },
    partition: { type: 'integer' },
    owner: { type: ['string', 'null'] },
    committedOffset: nullableInt,
    logEndOffset: nullableInt,
    lag: nullableInt,
  },
} as const;

export const listGroupsSchema = {
  querystring: { type: 'object', additionalProperties: false },
  response: { 200: { type: 'object', required: ['groups'], properties: { groups: { type: 'array', items: { type: 'string' } } } }, ...errors },
} as const;

export const describeGroupSchema = {
  querystring: { type: 'object', additionalProperties: false },
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^/]+$' } } },
  response: {
    200: {
      type: 'object',
      required: ['group', 'members', 'partitions'],
      properties: { group: { type: 'string' }, members: { type: 'array', items: member }, partitions: { type: 'array', items: partition } },
    },
    ...errors,
  },
} as const;
