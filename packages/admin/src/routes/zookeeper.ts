import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { errors, int, noParams, noQuery, nullableInt } from '../ops-schemas.js';
import { ensembleStatus } from '../zookeeper-status.js';

const nullableNumber = { type: ['number', 'null'] } as const;
const nullableString = { type: ['string', 'null'] } as const;

const zookeeperSchema = {
  params: noParams,
  querystring: noQuery,
  response: {
    200: {
      type: 'object',
      required: ['connectString', 'chroot', 'sessionHealthy', 'servers', 'serving', 'quorum'],
      properties: {
        connectString: { type: 'string' },
        chroot: nullableString,
        /** This broker's own session (the one its registration and the controller election hang on). */
        sessionHealthy: { type: 'boolean' },
        servers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['host', 'port', 'mode', 'version', 'latencyAvgMs', 'latencyMaxMs', 'connections', 'outstanding', 'zxid', 'nodeCount', 'error'],
            properties: {
              host: { type: 'string' },
              port: int,
              mode: nullableString,
              version: nullableString,
              latencyAvgMs: nullableNumber,
              latencyMaxMs: nullableNumber,
              connections: nullableInt,
              outstanding: nullableInt,
              zxid: nullableString,
              nodeCount: nullableInt,
              error: nullableString,
            },
          },
        },
        /** Servers that answered with a Mode. */
        serving: int,
        /** standalone: one server serving; majority: more than half serving; lost: neither. */
        quorum: { type: 'string', enum: ['standalone', 'majority', 'lost'] },
      },
    },
    ...errors,
  },
} as const;

/** GET /v1/zookeeper: the ensemble of this broker's `zookeeper.connect`, each server asked with `srvr`. */
export function zookeeperRoutes(app: FastifyInstance, { server }: AdminContext): void {
  app.get('/v1/zookeeper', { schema: zookeeperSchema }, async () => {
    const connectString = server.config.zookeeperConnect;
    const { servers, chroot } = await ensembleStatus(connectString);
    const serving = servers.filter((s) => s.mode !== null).length;
    const quorum = servers.some((s) => s.mode === 'standalone') ? 'standalone' : serving * 2 > servers.length ? 'majority' : 'lost';
    return { connectString, chroot, sessionHealthy: server.session?.healthy === true, servers, serving, quorum };
  });
}
