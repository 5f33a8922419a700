import { errorResponse } from './schemas.js';

/** JSON schemas of the SCRAM user routes (no credential material ever leaves the broker). */

const errors = { '4xx': errorResponse, '5xx': errorResponse } as const;
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;
const mechanism = { type: 'string', enum: ['SCRAM-SHA-256', 'SCRAM-SHA-512'] } as const;

const scramUser = {
  type: 'object',
  required: ['user', 'credentials'],
  properties: {
    user: { type: 'string' },
    credentials: { type: 'array', items: { type: 'object', required: ['mechanism', 'iterations'], properties: { mechanism: { type: 'string' }, iterations: { type: 'integer' } } } },
  },
} as const;

export interface CreateUserBody {
  name: string;
  password: string;
  mechanisms?: string[];
  iterations?: number;
}

export const listUsersSchema = {
  querystring: noQuery,
  response: { 200: { type: 'object', required: ['users'], properties: { users: { type: 'array', items: scramUser } } }, ...errors },
} as const;

export const createUserSchema = {
  querystring: noQuery,
  body: {
    type: 'object',
    required: ['name', 'password'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 1024 },
      password: { type: 'string', minLength: 1, maxLength: 1024 },
      mechanisms: { type: 'array', items: mechanism, minItems: 1, maxItems: 2 },
      iterations: { type: 'integer', minimum: 4096, maximum: 1_000_000 },
    },
  },
  response: { 201: scramUser, ...errors },
} as const;

export const deleteUserSchema = {
  params: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1 } } },
  querystring: { type: 'object', additionalProperties: false, properties: { mechanism } },
  response: { 200: { type: 'object', required: ['deleted', 'mechanisms'], properties: { deleted: { type: 'string' }, mechanisms: { type: 'array', items: { type: 'string' } } } }, ...errors },
} as const;
