import { ConfigError } from '@gregor/common';
import { ALL_SCRAM_MECHANISMS, deleteScramUser, listScramUsers, upsertScramUser } from '@gregor/broker';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { AdminError } from '../errors.js';
import { createUserSchema, deleteUserSchema, listUsersSchema, type CreateUserBody } from '../user-schemas.js';

/**
 * SCRAM users, written to ZooKeeper as kafka-configs (and `gregor users`) writes them; every broker
 * follows within moments. Passwords are never stored or shown. Every route needs the admin token.
 */
export function userRoutes(app: FastifyInstance, { server }: AdminContext): void {
  const invalid = (err: unknown): never => {
    if (err instanceof ConfigError) throw new AdminError('GREGOR_ERR_INVALID_USER', err.message);
    throw err;
  };

  app.get('/v1/users', { schema: listUsersSchema }, async () => ({ users: await listScramUsers(server.zk) }));

  app.post<{ Body: CreateUserBody }>('/v1/users', { schema: createUserSchema }, async (request, reply) => {
    const { name, password, mechanisms, iterations } = request.body;
    await upsertScramUser(server.zk, name, password, mechanisms ?? ALL_SCRAM_MECHANISMS, iterations ?? 4096).catch(invalid);
    const user = (await listScramUsers(server.zk)).find((u) => u.user === name);
    return reply.code(201).send(user ?? { user: name, credentials: [] });
  });

  app.delete<{ Params: { name: string }; Querystring: { mechanism?: string } }>('/v1/users/:name', { schema: deleteUserSchema }, async (request) => {
    const mechanisms = request.query.mechanism ? [request.query.mechanism] : ALL_SCRAM_MECHANISMS;
    const removed = await deleteScramUser(server.zk, request.params.name, mechanisms).catch(invalid);
    if (!removed) throw new AdminError('GREGOR_ERR_UNKNOWN_USER', `User ${request.params.name} has no ${mechanisms.join('/')} credentials.`);
    return { deleted: request.params.name, mechanisms };
  });
}
