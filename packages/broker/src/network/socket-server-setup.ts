import type { Logger } from '@gregor/common';
import { jaasPlainUsers } from '@gregor/net';
import type { ReadBufferPool } from '@gregor/storage';
import type { BrokerConfig, Endpoint } from '../config/broker-config.js';
import type { KafkaApis } from '../kafka-apis.js';
import { listenerTlsOptions } from '../security/listener-tls.js';
import { SaslServerAuthenticator } from '../security/sasl-server-authenticator.js';
import type { ScramCredentialCache } from '../security/scram-credential-cache.js';
import { SocketServer, type ListenerSpec } from './socket-server.js';

export interface SocketServerDeps {
  apis: KafkaApis;
  scramCredentials: ScramCredentialCache;
  /** Fetch read buffers, given back once the socket flushed them. */
  readPool: ReadBufferPool;
  /** Produce requests spanning socket reads are assembled in these. */
  requestPool: ReadBufferPool;
}

/** The SocketServer of every listener, with the broker's connection limits (not started). */
export function createSocketServer(cfg: BrokerConfig, deps: SocketServerDeps, logger: Logger): SocketServer {
  return new SocketServer({
    listeners: cfg.listeners.map((l) => listenerSpec(cfg, l, deps)),
    maxRequestBytes: cfg.socketRequestMaxBytes,
    handler: deps.apis.handleFrame,
    onWritten: (chunk) => deps.readPool.release(chunk),
    requestPool: deps.requestPool,
    failedAuthenticationDelayMs: cfg.security.failedAuthenticationDelayMs,
    interBrokerListener: cfg.interBrokerListenerName,
    limits: {
      maxConnections: cfg.maxConnections,
      maxConnectionsPerIp: cfg.maxConnectionsPerIp,
      maxConnectionsPerIpOverrides: cfg.maxConnectionsPerIpOverrides,
      connectionsMaxIdleMs: cfg.connectionsMaxIdleMs,
      queuedMaxRequests: cfg.queuedMaxRequests,
      maxUnsentBytes: cfg.connectionMaxUnsentBytes,
    },
    logger,
  });
}

/** One listener with its protocol, TLS options (files read now) and, for SASL_*, an authenticator per connection. */
function listenerSpec(cfg: BrokerConfig, l: Endpoint, deps: SocketServerDeps): ListenerSpec {
  const security = cfg.security.listeners.get(l.listenerName)!;
  const spec: ListenerSpec = { listenerName: l.listenerName, host: l.host, port: l.port, securityProtocol: security.protocol };
  if (security.ssl) spec.tls = listenerTlsOptions(l.listenerName, security.ssl);
  const sasl = security.sasl;
  if (sasl) {
    const plainUsers = jaasPlainUsers(sasl.jaas.get('PLAIN') ?? []);
    spec.authenticator = (conn) =>
      new SaslServerAuthenticator({ mechanisms: sasl.mechanisms, plainUsers, scramCredentials: deps.scramCredentials, apiVersions: (frame) => deps.apis.handleFrame(frame, conn) });
  }
  return spec;
}
