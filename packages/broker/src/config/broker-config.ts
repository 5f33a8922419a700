import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { closestName, ConfigError } from '@gregor/common';
import { oneOf, parseValue, type ConfigValue } from './config-def.js';
import { BY_NAME, KEYS } from './broker-config-keys.js';
import { buildSecurityConfig, isListenerScopedSetting, parseProtocolMap, type BrokerSecurityConfig } from './security-config.js';
import type { SecurityProtocol, SslStoreSettings } from '@gregor/net';
import type { TopicCompressionType } from '@gregor/storage';

export { brokerConfigDocs, brokerConfigKey, knownConfigNames } from './broker-config-keys.js';
export { propertiesFromEnv, propertiesFromOverrides, readPropertiesFile } from './config-sources.js';

const HOUR = 3_600_000;

export interface Endpoint {
  listenerName: string;
  host: string;
  port: number;
  /** From listener.security.protocol.map (parseEndpoint alone leaves PLAINTEXT). */
  securityProtocol: SecurityProtocol;
}

/** The validated, typed broker configuration. */
export interface BrokerConfig {
  brokerId: number;
  listeners: Endpoint[];
  advertisedListeners: Endpoint[];
  interBrokerListenerName: string;
  logDirs: string[];
  zookeeperConnect: string;
  zookeeperSessionTimeoutMs: number;
  zookeeperConnectionTimeoutMs: number;
  rack: string | null;
  numPartitions: number;
  defaultReplicationFactor: number;
  autoCreateTopicsEnable: boolean;
  deleteTopicEnable: boolean;
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  replicaLagTimeMaxMs: number;
  replicaFetchMaxBytes: number;
  replicaFetchWaitMaxMs: number;
  replicaFetchMinBytes: number;
  replicaFetchBackoffMs: number;
  replicaHighWatermarkCheckpointIntervalMs: number;
  maxIncrementalFetchSessionCacheSlots: number;
  controlledShutdownEnable: boolean;
  controlledShutdownMaxRetries: number;
  controlledShutdownRetryBackoffMs: number;
  autoLeaderRebalanceEnable: boolean;
  leaderImbalanceCheckIntervalSeconds: number;
  leaderImbalancePerBrokerPercentage: number;
  controllerSocketTimeoutMs: number;
  offsetsTopicReplicationFactor: number;
  offsetsTopicNumPartitions: number;
  groupInitialRebalanceDelayMs: number;
  groupMinSessionTimeoutMs: number;
  groupMaxSessionTimeoutMs: number;
  offsetsRetentionMs: number;
  offsetMetadataMaxBytes: number;
  messageMaxBytes: number;
  socketRequestMaxBytes: number;
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** max.connections.per.ip.overrides: IP -> limit. */
  maxConnectionsPerIpOverrides: Map<string, number>;
  connectionsMaxIdleMs: number;
  queuedMaxRequests: number;
  connectionMaxUnsentBytes: number;
  fetchMaxBytes: number;
  replicaFetchResponseMaxBytes: number;
  logSegmentBytes: number;
  logIndexIntervalBytes: number;
  logIndexSizeMaxBytes: number;
  logRetentionMs: number;
  logRetentionBytes: number;
  logRetentionCheckIntervalMs: number;
  logRollMs: number;
  logSegmentDeleteDelayMs: number;
  logFlushOffsetCheckpointIntervalMs: number;
  /** log.flush.interval.messages (flush.messages default). */
  logFlushIntervalMessages: number;
  /** log.flush.interval.ms, else log.flush.scheduler.interval.ms (flush.ms default). */
  logFlushIntervalMs: number;
  /** How often the log manager checks flush.ms: log.flush.scheduler.interval.ms, at most 1 s, at most log.flush.interval.ms. */
  logFlushCheckIntervalMs: number;
  logCleanupPolicy: string[];
  logMessageTimestampType: 'CreateTime' | 'LogAppendTime';
  logMessageTimestampDifferenceMaxMs: number;
  logMessageDownconversionEnable: boolean;
  /** compression.type (topic default): the codec leaders store batches in; producer keeps theirs. */
  compressionType: TopicCompressionType;
  producerIdExpirationMs: number;
  producerIdExpirationCheckIntervalMs: number;
  httpHost: string;
  httpPort: number;
  httpAuthToken: string | null;
  /** Host header values the HTTP admin answers; null = the defaults (loopback names, http.host, advertised hosts, hostname). */
  httpAllowedHosts: string[] | null;
  /** HTTPS for the HTTP admin; null = plain HTTP. */
  httpSsl: SslStoreSettings | null;
  /** Listener protocols, TLS and SASL settings, the authorizer. */
  security: BrokerSecurityConfig;
  /** Every setting as given (strings), for describe-configs and logs. */
  originals: Record<string, string>;
  /**
   * Settings gregor does not know, ignored with a warning as Kafka does ("was supplied but isn't a
   * known config"), each with the nearest known name when one is close (a likely typo).
   */
  unknownSettings: { name: string; suggestion: string | null }[];
}

/** Parses `NAME://host:port`; an empty host means all interfaces. */
export function parseEndpoint(s: string): Endpoint {
  const m = /^([A-Za-z0-9_]+):\/\/(\[[^\]]*\]|[^:]*):(\d+)$/.exec(s.trim());
  if (!m) throw new ConfigError(`Invalid listener "${s}": expected NAME://host:port`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`Invalid listener "${s}": port out of range`);
  return { listenerName: m[1]!.toUpperCase(), host: m[2]!.replace(/^\[|\]$/g, ''), port, securityProtocol: 'PLAINTEXT' };
}

/**
 * Builds the configuration from settings in precedence order: later sources override earlier ones
 * (properties file < environment < command-line overrides). Bad values throw ConfigError; unknown
 * names are ignored and listed in `unknownSettings` for the broker to warn about, as Kafka does.
 */
export function buildBrokerConfig(...sources: Map<string, string>[]): BrokerConfig {
  const raw = new Map<string, string>();
  for (const src of sources) for (const [k, v] of src) raw.set(k, v);
  const unknownSettings = [...raw.keys()].filter((k) => !BY_NAME.has(k) && !isListenerScopedSetting(k)).map((name) => ({ name, suggestion: closestName(name, [...BY_NAME.keys()]) }));

  const values = new Map<string, ConfigValue>();
  for (const key of KEYS) {
    const given = raw.get(key.name);
    let value: ConfigValue;
    if (given !== undefined) value = parseValue(key, given);
    else if (key.default === undefined) throw new ConfigError(`Missing required configuration "${key.name}"`);
    else value = key.default;
    if (value !== null && key.validate) {
      const problem = (key.validate as (v: ConfigValue) => string | undefined)(value);
      if (problem) throw new ConfigError(`Invalid value ${JSON.stringify(given ?? value)} for configuration ${key.name}: ${problem}`);
    }
    values.set(key.name, value);
  }
  const get = <T extends ConfigValue>(name: string) => values.get(name) as T;

  const listeners = get<string[]>('listeners').map(parseEndpoint);
  if (listeners.length === 0) throw new ConfigError('listeners must name at least one listener');
  const names = new Set<string>();
  for (const l of listeners) {
    if (names.has(l.listenerName)) throw new ConfigError(`Listener name ${l.listenerName} is used twice in listeners`);
    names.add(l.listenerName);
  }
  const advertised = (get<string[] | null>('advertised.listeners') ?? get<string[]>('listeners')).map(parseEndpoint);
  for (const a of advertised) {
    if (!names.has(a.listenerName)) throw new ConfigError(`advertised.listeners names ${a.listenerName}, which is not in listeners`);
    // Kafka advertises the canonical host name for an empty host; on one machine 127.0.0.1 is what clients reach.
    if (a.host === '' || a.host === '0.0.0.0') a.host = '127.0.0.1';
  }
  const protocolMap = parseProtocolMap(get<string[]>('listener.security.protocol.map'));
  const interBrokerName = get<string | null>('inter.broker.listener.name');
  const interBrokerProtocol = get<string | null>('security.inter.broker.protocol');
  if (interBrokerName && interBrokerProtocol) throw new ConfigError('Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.');
  const interBroker = (interBrokerName ?? interBrokerProtocol)?.toUpperCase() ?? listeners[0]!.listenerName;
  if (!names.has(interBroker)) throw new ConfigError(`inter.broker.listener.name ${interBroker} is not in listeners`);
  if (!advertised.some((a) => a.listenerName === interBroker)) {
    throw new ConfigError(`inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are ${advertised.map((a) => a.listenerName).join(',')}`);
  }
  const security = buildSecurityConfig(raw, raw.get('listeners') ?? listeners.map((l) => `${l.listenerName}://${l.host}:${l.port}`).join(','), [...names], interBroker, protocolMap);
  for (const e of [...listeners, ...advertised]) e.securityProtocol = security.listeners.get(e.listenerName)!.protocol;

  const httpHost = get<string>('http.host');
  const httpAuthToken = get<string | null>('http.auth.token') || httpTokenFromFile(get<string | null>('http.auth.token.file'));
  if (get<number>('http.port') !== -1 && !httpAuthToken && !isLoopbackHost(httpHost)) {
    throw new ConfigError(`http.host ${httpHost} exposes the HTTP admin API beyond this machine without a token: set http.auth.token (compose: GREGOR_HTTP_TOKEN), or bind http.host to 127.0.0.1, or disable it with http.port=-1`);
  }
  const httpKeystore = get<string | null>('http.ssl.keystore.location');

  const logDirs = get<string[] | null>('log.dirs') ?? [get<string>('log.dir')];
  if (logDirs.length === 0) throw new ConfigError('log.dirs must name at least one directory');

  const never = Number.MAX_SAFE_INTEGER;
  const flushSchedulerMs = get<number | null>('log.flush.scheduler.interval.ms') ?? never;
  const flushMs = get<number | null>('log.flush.interval.ms') ?? flushSchedulerMs;
  const retentionMs =
    get<number | null>('log.retention.ms') ??
    (get<number | null>('log.retention.minutes') !== null ? get<number>('log.retention.minutes') * 60_000 : get<number>('log.retention.hours') * HOUR);
  const sessionTimeout = get<number>('zookeeper.session.timeout.ms');
  const cleanup = get<string[]>('log.cleanup.policy');
  for (const p of cleanup) {
    const problem = oneOf('delete', 'compact')(p);
    if (problem) throw new ConfigError(`Invalid value "${p}" for configuration log.cleanup.policy: ${problem}`);
  }

  return {
    brokerId: get('broker.id'),
    listeners,
    advertisedListeners: advertised,
    interBrokerListenerName: interBroker,
    logDirs,
    zookeeperConnect: get('zookeeper.connect'),
    zookeeperSessionTimeoutMs: sessionTimeout,
    zookeeperConnectionTimeoutMs: get<number | null>('zookeeper.connection.timeout.ms') ?? sessionTimeout,
    rack: get('broker.rack'),
    numPartitions: get('num.partitions'),
    defaultReplicationFactor: get('default.replication.factor'),
    autoCreateTopicsEnable: get('auto.create.topics.enable'),
    deleteTopicEnable: get('delete.topic.enable'),
    minInsyncReplicas: get('min.insync.replicas'),
    uncleanLeaderElectionEnable: get('unclean.leader.election.enable'),
    replicaLagTimeMaxMs: get('replica.lag.time.max.ms'),
    replicaFetchMaxBytes: get('replica.fetch.max.bytes'),
    replicaFetchWaitMaxMs: get('replica.fetch.wait.max.ms'),
    replicaFetchMinBytes: get('replica.fetch.min.bytes'),
    replicaFetchBackoffMs: get('replica.fetch.backoff.ms'),
    replicaHighWatermarkCheckpointIntervalMs: get('replica.high.watermark.checkpoint.interval.ms'),
    maxIncrementalFetchSessionCacheSlots: get('max.incremental.fetch.session.cache.slots'),
    controlledShutdownEnable: get('controlled.shutdown.enable'),
    controlledShutdownMaxRetries: get('controlled.shutdown.max.retries'),
    controlledShutdownRetryBackoffMs: get('controlled.shutdown.retry.backoff.ms'),
    autoLeaderRebalanceEnable: get('auto.leader.rebalance.enable'),
    leaderImbalanceCheckIntervalSeconds: get('leader.imbalance.check.interval.seconds'),
    leaderImbalancePerBrokerPercentage: get('leader.imbalance.per.broker.percentage'),
    controllerSocketTimeoutMs: get('controller.socket.timeout.ms'),
    offsetsTopicReplicationFactor: get('offsets.topic.replication.factor'),
    offsetsTopicNumPartitions: get('offsets.topic.num.partitions'),
    groupInitialRebalanceDelayMs: get('group.initial.rebalance.delay.ms'),
    groupMinSessionTimeoutMs: get('group.min.session.timeout.ms'),
    groupMaxSessionTimeoutMs: get('group.max.session.timeout.ms'),
    offsetsRetentionMs: get<number>('offsets.retention.minutes') * 60_000,
    offsetMetadataMaxBytes: get('offset.metadata.max.bytes'),
    messageMaxBytes: get('message.max.bytes'),
    socketRequestMaxBytes: get('socket.request.max.bytes'),
    maxConnections: get('max.connections'),
    maxConnectionsPerIp: get('max.connections.per.ip'),
    maxConnectionsPerIpOverrides: parseIpOverrides(get<string>('max.connections.per.ip.overrides')),
    connectionsMaxIdleMs: get('connections.max.idle.ms'),
    queuedMaxRequests: get('queued.max.requests'),
    connectionMaxUnsentBytes: get('connection.max.unsent.bytes'),
    fetchMaxBytes: get('fetch.max.bytes'),
    replicaFetchResponseMaxBytes: get('replica.fetch.response.max.bytes'),
    logSegmentBytes: get('log.segment.bytes'),
    logIndexIntervalBytes: get('log.index.interval.bytes'),
    logIndexSizeMaxBytes: get('log.index.size.max.bytes'),
    logRetentionMs: retentionMs,
    logRetentionBytes: get('log.retention.bytes'),
    logRetentionCheckIntervalMs: get('log.retention.check.interval.ms'),
    logRollMs: get<number | null>('log.roll.ms') ?? get<number>('log.roll.hours') * HOUR,
    logSegmentDeleteDelayMs: get('log.segment.delete.delay.ms'),
    logFlushOffsetCheckpointIntervalMs: get('log.flush.offset.checkpoint.interval.ms'),
    logFlushIntervalMessages: get<number | null>('log.flush.interval.messages') ?? never,
    logFlushIntervalMs: flushMs,
    logFlushCheckIntervalMs: Math.max(1, Math.min(flushSchedulerMs, flushMs, 1000)),
    logCleanupPolicy: cleanup,
    logMessageTimestampType: get('log.message.timestamp.type'),
    logMessageTimestampDifferenceMaxMs: get('log.message.timestamp.difference.max.ms'),
    logMessageDownconversionEnable: get('log.message.downconversion.enable'),
    compressionType: get('compression.type'),
    producerIdExpirationMs: get('producer.id.expiration.ms'),
    producerIdExpirationCheckIntervalMs: get('producer.id.expiration.check.interval.ms'),
    httpHost,
    httpPort: get('http.port'),
    httpAuthToken,
    httpAllowedHosts: get<string[] | null>('http.allowed.hosts'),
    httpSsl: httpKeystore
      ? {
          keystoreType: get<string>('http.ssl.keystore.type'),
          keystoreLocation: httpKeystore,
          keystorePassword: get<string | null>('http.ssl.keystore.password'),
          keyPassword: get<string | null>('http.ssl.key.password'),
        }
      : null,
    security,
    originals: Object.fromEntries(raw),
    unknownSettings,
  };
}

/** 127.0.0.0/8, ::1 and localhost: an HTTP admin bound there is reachable from this machine only. */
/** `ip:count,ip:count` (Kafka's max.connections.per.ip.overrides; IPv6 addresses keep their colons). */
function parseIpOverrides(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of text.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const at = entry.lastIndexOf(':');
    const count = Number(entry.slice(at + 1));
    if (at <= 0 || !Number.isInteger(count) || count < 0) throw new ConfigError(`max.connections.per.ip.overrides: "${entry}" must be ip:count`);
    out.set(entry.slice(0, at).trim(), count);
  }
  return out;
}

/**
 * The token kept in `file`, created with a random one when missing (exclusive create: brokers
 * starting together on a shared volume end up with the same token). null without a file. An existing
 * file is only read: it may sit on a read-only mount (compose's secure profile, a secret volume).
 */
function httpTokenFromFile(file: string | null): string | null {
  if (!file) return null;
  if (!existsSync(file)) {
    // Written aside, then linked into place: link is atomic and fails if another broker got there first.
    const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      writeFileSync(aside, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
      linkSync(aside, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`http.auth.token.file ${file}: ${(err as Error).message}`);
    } finally {
      rmSync(aside, { force: true });
    }
  }
  const token = readFileSync(file, 'utf8').trim();
  if (token === '') throw new ConfigError(`http.auth.token.file ${file} is empty`);
  return token;
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
