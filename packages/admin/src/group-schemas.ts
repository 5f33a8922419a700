import { errorResponse } from './schemas.js';

/**
 * Schemas of the consumer-group routes: groups of the ZooKeeper consumer connector (/consumers in
 * ZooKeeper, `kind: "zookeeper"`) and of the broker-side group coordinator (`kind: "coordinator"`).
 */
const nullableInt = { type: ['integer', 'null'] } as const;
const errors = { '4xx': errorResponse, '5xx': errorResponse } as const;

const kind = { type: 'string', enum: ['zookeeper', 'coordinator'] } as const;
const groupId = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^/]+$' } as const;

/** ZooKeeper members carry consumerId…timestamp; coordinator members memberId…assignment. */
const member = {
  type: 'object',
  properties: {
    consumerId: { type: 'string' },
    pattern: { type: 'string', enum: ['static', 'white_list', 'black_list'] },
    subscription: { type: 'object', additionalProperties: { type: 'integer' } },
    timestamp: { type: 'integer' },
    memberId: { type: 'string' },
    groupInstanceId: { type: ['string', 'null'] },
    clientId: { type: 'string' },
    clientHost: { type: 'string' },
    assignment: {
      type: ['array', 'null'],
      description: 'Partitions assigned to the member (Java consumer Assignment; null when the protocol type is not "consumer" or the group is not Stable).',
      items: { type: 'object', required: ['topic', 'partitions'], properties: { topic: { type: 'string' }, partitions: { type: 'array', items: { type: 'integer' } } } },
    },
  },
} as const;

const groupEntry = {
  type: 'object',
  required: ['group', 'kind'],
  properties: {
    group: { type: 'string' },
    kind,
    state: { type: 'string', description: 'Coordinator groups: Empty, PreparingRebalance, CompletingRebalance, Stable or Dead.' },
    protocolType: { type: 'string' },
    coordinator: { type: 'integer', description: 'The broker coordinating the group.' },
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
  response: {
    200: {
      type: 'object',
      required: ['groups', 'entries'],
      properties: {
        groups: { type: 'array', items: { type: 'string' }, description: 'Names of the groups of both kinds, sorted, each once.' },
        entries: { type: 'array', items: groupEntry, description: 'One entry per group and kind.' },
        unavailableCoordinators: {
          type: 'array',
          description: 'Present when some live brokers did not answer ListGroups: the groups they coordinate are missing from this answer.',
          items: { type: 'object', required: ['broker', 'error'], properties: { broker: { type: 'integer' }, error: { type: 'string' } } },
        },
      },
    },
    ...errors,
  },
} as const;

export const describeGroupSchema = {
  querystring: { type: 'object', additionalProperties: false, properties: { kind } },
  params: { type: 'object', required: ['id'], properties: { id: groupId } },
  response: {
    200: {
      type: 'object',
      required: ['group', 'kind', 'members', 'partitions'],
      properties: {
        group: { type: 'string' },
        kind,
        state: { type: 'string' },
        protocolType: { type: 'string' },
        protocol: { type: 'string', description: 'The selected protocol (the assignor for consumer groups); empty unless Stable.' },
        coordinator: { type: 'integer' },
        members: { type: 'array', items: member },
        partitions: { type: 'array', items: partition },
      },
    },
    ...errors,
  },
} as const;

const resetTo = {
  oneOf: [
    { type: 'string', enum: ['earliest', 'latest'] },
    { type: 'object', required: ['timestamp'], additionalProperties: false, properties: { timestamp: { type: 'integer', minimum: 0 } } },
    { type: 'object', required: ['offset'], additionalProperties: false, properties: { offset: { type: 'integer', minimum: 0 } } },
    { type: 'object', required: ['shiftBy'], additionalProperties: false, properties: { shiftBy: { type: 'integer' } } },
  ],
} as const;

export const resetOffsetsSchema = {
  params: { type: 'object', required: ['id'], properties: { id: groupId } },
  body: {
    type: 'object',
    required: ['to'],
    additionalProperties: false,
    properties: {
      to: resetTo,
      topics: { type: 'array', minItems: 1, maxItems: 1000, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 249 } },
      kind: { ...kind, description: 'Default: zookeeper when the group has a /consumers node, else coordinator.' },
      dryRun: { type: 'boolean', description: 'Plan only: answer the offsets an execute would commit, and commit nothing (kafka-consumer-groups --dry-run).' },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['group', 'kind', 'dryRun', 'offsets'],
      properties: {
        group: { type: 'string' },
        kind,
        dryRun: { type: 'boolean' },
        offsets: {
          type: 'array',
          items: {
            type: 'object',
            required: ['topic', 'partition', 'previousOffset', 'offset'],
            properties: { topic: { type: 'string' }, partition: { type: 'integer' }, previousOffset: nullableInt, offset: { type: 'integer' } },
          },
        },
      },
    },
    ...errors,
  },
} as const;
