import type { AddressInfo } from 'node:net';
import type { KafkaServer } from '@gregor/broker';
import type { Logger } from '@gregor/common';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AdminContext } from './admin-context.js';
import { requireToken } from './auth.js';
import { defaultAllowedHosts, requireAllowedHost } from './host-allowlist.js';
import { ConnectionPool, loadTlsKeyMaterial } from '@gregor/net';
import { AdminError, errorBody, toAdminError } from './errors.js';
import { brokerRoutes } from './routes/brokers.js';
import { clusterRoutes } from './routes/cluster.js';
import { consoleRoutes } from './routes/console.js';
import { groupRoutes } from './routes/groups.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { registerOpenApi } from './routes/openapi.js';
import { partitionHealthRoutes } from './routes/partition-health.js';
import { partitionRoutes } from './routes/partitions.js';
import { recordRoutes } from './routes/records.js';
import { topicConfigRoutes } from './routes/topic-configs.js';
import { topicRoutes } from './routes/topics.js';
import { zookeeperRoutes } from './routes/zookeeper.js';
import { userRoutes } from './routes/users.js';

export interface AdminAppOptions {
  /** The broker's logger; fastify logs through a child of it at warn level or above. Default: no logs. */
  logger?: Logger;
  /** When set, writes, record reads and /v1/users need `Authorization: Bearer <authToken>`. Default null: open. */
  authToken?: string | null;
  /** Host header values answered (DNS-rebinding guard); default: the broker's http.allowed.hosts, else loopback names, http.host, advertised hosts, hostname. */
  allowedHosts?: readonly string[];
  /** Largest request body. Default 1 MiB. */
  bodyLimitBytes?: number;
  /** How long writes wait for their outcome to show in the metadata. Default 30000. */
  writeTimeoutMs?: number;
}

export interface AdminServerOptions extends AdminAppOptions {
  host: string;
  port: number;
  logger: Logger;
}

export interface AdminServer {
  /** The bound port (the OS picks one for port 0). */
  port: number;
  close(): Promise<void>;
  app: FastifyInstance;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const WARN_LEVEL = 40;
const READ_METHODS = new Set(['GET', 'HEAD']);
const READ_ONLY_STATES = new Set(['RunningAsBroker', 'PendingControlledShutdown']);

/** The broker's HTTP admin API as a fastify instance that is not listening yet (tests use `inject`). */
export function buildAdminApp(server: KafkaServer, opts: AdminAppOptions = {}): FastifyInstance {
  const https = server.config.httpSsl ? loadTlsKeyMaterial(server.config.httpSsl, 'http.') : null;
  const app = Fastify({
    ...(https ? { https } : {}),
    ...(opts.logger ? { loggerInstance: httpLogger(opts.logger) as FastifyBaseLogger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
    // A body or query of the wrong type is an error, never silently converted or trimmed.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    // Room for the longest legal topic name (249) so a longer one is GREGOR_ERR_INVALID_TOPIC, not an unknown route.
    routerOptions: { maxParamLength: 1000 },
    requestTimeout: 60_000,
    return503OnClosing: true,
  }) as unknown as FastifyInstance;

  // JSON only: fastify would also hand text/plain bodies to the routes as strings.
  app.removeContentTypeParser('text/plain');

  const leaders = new ConnectionPool({
    clientId: 'gregor-admin',
    connectTimeoutMs: 5_000,
    requestTimeoutMs: 5_000,
    ...(server.interBrokerSecurity ? { security: server.interBrokerSecurity } : {}),
    ...(opts.logger ? { logger: opts.logger.child({ component: 'admin-http' }) } : {}),
  });
  const ctx: AdminContext = { server, leaders, writeTimeoutMs: opts.writeTimeoutMs ?? 30_000 };
  app.addHook('onClose', async () => leaders.close());

  const allowedHosts = opts.allowedHosts ?? server.config.httpAllowedHosts ?? defaultAllowedHosts(server.config.httpHost, server.config.advertisedListeners.map((l) => l.host));
  app.addHook('onRequest', requireAllowedHost(allowedHosts));
  if (opts.authToken) app.addHook('onRequest', requireToken(opts.authToken));
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/v1/')) return;
    // Before startup and after shutdown the broker's components are absent or stopped.
    const ready = READ_METHODS.has(request.method) ? READ_ONLY_STATES.has(server.state) : server.state === 'RunningAsBroker';
    if (!ready) throw new AdminError('GREGOR_ERR_BROKER_NOT_READY', `The broker is ${server.state}.`);
  });

  app.setErrorHandler((err, request, reply) => {
    const error = toAdminError(err);
    if (error.statusCode >= 500) request.log.error({ err, reqId: request.id, url: request.url, method: request.method }, 'admin request failed');
    // A 500 tells the caller nothing about the broker's insides: the log has them under the request id.
    const body = error.code === 'GREGOR_ERR_INTERNAL' ? errorBody(new AdminError('GREGOR_ERR_INTERNAL', `Internal error (request ${request.id}); the broker log has the details.`, error.kafkaErrorCode)) : errorBody(error);
    return reply.code(error.statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new AdminError('GREGOR_ERR_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`);
    return reply.code(error.statusCode).send(errorBody(error));
  });

  // Routes go in a plugin registered after @fastify/swagger, so that its onRoute hook sees all of them.
  registerOpenApi(app);
  void app.register(async (scope) => {
    healthRoutes(scope, ctx);
    clusterRoutes(scope, ctx);
    topicRoutes(scope, ctx);
    groupRoutes(scope, ctx);
    brokerRoutes(scope, ctx);
    topicConfigRoutes(scope, ctx);
    partitionRoutes(scope, ctx);
    partitionHealthRoutes(scope, ctx);
    zookeeperRoutes(scope, ctx);
    recordRoutes(scope, ctx);
    metricsRoutes(scope, ctx);
    consoleRoutes(scope);
    userRoutes(scope, ctx);
  });
  return app;
}

/** Builds the admin API and listens on host:port; `close()` stops it and its connections to other brokers. */
export async function startAdminServer(server: KafkaServer, opts: AdminServerOptions): Promise<AdminServer> {
  const app = buildAdminApp(server, opts);
  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    await app.close();
    throw err;
  }
  const port = (app.server.address() as AddressInfo).port;
  opts.logger.info({ host: opts.host, port }, 'admin HTTP server listening');
  return { port, app, close: () => app.close() };
}

/** fastify's logs at warn or above (or the broker's own level when that is stricter). */
function httpLogger(logger: Logger): Logger {
  const level = logger.levelVal > WARN_LEVEL ? logger.level : 'warn';
  return logger.child({ component: 'admin-http' }, { level });
}
