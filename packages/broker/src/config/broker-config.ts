import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { closestName, ConfigError } from '@gregor/common';
import { atLeast, between, oneOf, parseValue, type ConfigKey, type ConfigValue } from './config-def.js';
import { parseProperties } from './properties.js';
import { buildSecurityConfig, isListenerScopedSetting, parseProtocolMap, type BrokerSecurityConfig } from './security-config.js';
import type { SecurityProtocol, SslStoreSettings } from '@gregor/net';

const HOUR = 3_600_000;

/**
 * Every broker setting gregor understands, with Kafka's names and defaults (Kafka 2.5+ unless noted).
 * `compat: true` settings appear in Kafka's stock server.properties; they are accepted so that file
 * works unchanged, and have no effect in gregor (documented in docs/configuration.md).
 */
const KEYS: (ConfigKey & { compat?: boolean })[] = [
  { name: 'broker.id', type: 'int', doc: 'Unique id of this broker.', validate: atLeast(0) as never },
  { name: 'listeners', type: 'list', default: ['PLAINTEXT://:9092'], doc: 'Listeners to bind, NAME://host:port.' },
  { name: 'advertised.listeners', type: 'list', default: null, doc: 'Listeners published in ZooKeeper for clients; defaults to listeners.' },
  {
    name: 'listener.security.protocol.map',
    type: 'list',
    default: ['PLAINTEXT:PLAINTEXT', 'SSL:SSL', 'SASL_PLAINTEXT:SASL_PLAINTEXT', 'SASL_SSL:SASL_SSL'],
    doc: 'Listener name to security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL); a listener missing here stops the broker.',
  },
  { name: 'inter.broker.listener.name', type: 'string', default: null, doc: 'Listener that brokers and the controller use to talk to each other; default: the first one. Without an authorizer only this listener accepts LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown and replica fetches.' },
  { name: 'security.inter.broker.protocol', type: 'string', default: null, doc: 'Older way to name the inter-broker listener: the listener whose name is this protocol (not together with inter.broker.listener.name).' },
  { name: 'ssl.keystore.type', type: 'string', default: 'PEM', doc: 'PEM (a file with the private key and certificate chain) or PKCS12; JKS is not supported. Also per listener as listener.name.<l>.ssl.*.' },
  { name: 'ssl.keystore.location', type: 'string', default: null, doc: 'Keystore file of SSL/SASL_SSL listeners (PEM: key and certificate chain in one file).' },
  { name: 'ssl.keystore.password', type: 'password', default: null, doc: 'Password of a PKCS12 keystore.' },
  { name: 'ssl.key.password', type: 'password', default: null, doc: 'Password of an encrypted PEM private key.' },
  { name: 'ssl.keystore.certificate.chain', type: 'password', default: null, doc: 'The certificate chain as PEM text (instead of ssl.keystore.location).' },
  { name: 'ssl.keystore.key', type: 'password', default: null, doc: 'The private key as PEM text (instead of ssl.keystore.location).' },
  { name: 'ssl.truststore.type', type: 'string', default: 'PEM', doc: 'PEM.' },
  { name: 'ssl.truststore.location', type: 'string', default: null, doc: 'PEM file of the CA certificates trusted for client certificates and for other brokers.' },
  { name: 'ssl.truststore.certificates', type: 'password', default: null, doc: 'The trusted certificates as PEM text (instead of ssl.truststore.location).' },
  { name: 'ssl.client.auth', type: 'string', default: 'none', doc: 'none, requested or required: whether SSL listeners ask clients for certificates (the principal is then User:<subject DN>).', validate: oneOf('none', 'requested', 'required') as never },
  { name: 'ssl.endpoint.identification.algorithm', type: 'string', default: 'https', doc: 'https: check the host name in other brokers\' certificates; empty: do not.' },
  { name: 'ssl.enabled.protocols', type: 'list', default: ['TLSv1.2', 'TLSv1.3'], doc: 'TLS versions SSL listeners accept.' },
  { name: 'sasl.enabled.mechanisms', type: 'list', default: ['SCRAM-SHA-256', 'SCRAM-SHA-512'], doc: 'SASL mechanisms of SASL_* listeners: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (GSSAPI and OAUTHBEARER are not supported). Per listener: listener.name.<l>.sasl.enabled.mechanisms.' },
  { name: 'sasl.mechanism.inter.broker.protocol', type: 'string', default: null, doc: 'Mechanism brokers use on a SASL inter-broker listener; default: its first enabled mechanism.' },
  { name: 'sasl.jaas.config', type: 'password', default: null, doc: 'JAAS entry used when no listener.name.<l>.<mechanism>.sasl.jaas.config is set: PlainLoginModule user_<name>="<password>" entries are the PLAIN users; username/password are this broker\'s own inter-broker credentials.' },
  { name: 'connection.failed.authentication.delay.ms', type: 'int', default: 100, doc: 'Delay before a connection that failed authentication is closed.', validate: atLeast(0) as never },
  { name: 'authorizer.class.name', type: 'string', default: '', doc: 'kafka.security.authorizer.AclAuthorizer turns on ACLs (ZooKeeper /kafka-acl); empty = no authorizer.' },
  { name: 'super.users', type: 'string', default: null, doc: 'Principals allowed everything by the authorizer, separated by ";" (User:admin;User:broker).' },
  { name: 'allow.everyone.if.no.acl.found', type: 'boolean', default: false, doc: 'With an authorizer: allow access to resources that have no ACL at all.' },
  { name: 'log.dirs', type: 'list', default: null, doc: 'Directories holding partition logs.' },
  { name: 'log.dir', type: 'string', default: '/tmp/kafka-logs', doc: 'Log directory used when log.dirs is not set.' },
  { name: 'zookeeper.connect', type: 'string', doc: 'ZooKeeper connect string host:port[,host:port...][/chroot].' },
  { name: 'zookeeper.session.timeout.ms', type: 'int', default: 18000, doc: 'ZooKeeper session timeout.', validate: atLeast(1000) as never },
  { name: 'zookeeper.connection.timeout.ms', type: 'int', default: null, doc: 'Max wait for a ZooKeeper connection; defaults to the session timeout.' },
  { name: 'broker.rack', type: 'string', default: null, doc: 'Rack of this broker.' },
  { name: 'num.partitions', type: 'int', default: 1, doc: 'Partitions of auto-created topics.', validate: atLeast(1) as never },
  { name: 'default.replication.factor', type: 'int', default: 1, doc: 'Replication factor of auto-created topics.', validate: atLeast(1) as never },
  { name: 'auto.create.topics.enable', type: 'boolean', default: true, doc: 'Create a topic when a client asks for metadata of an unknown one.' },
  { name: 'delete.topic.enable', type: 'boolean', default: true, doc: 'Allow topic deletion.' },
  { name: 'min.insync.replicas', type: 'int', default: 1, doc: 'Minimum ISR size for acks=all writes.', validate: atLeast(1) as never },
  { name: 'unclean.leader.election.enable', type: 'boolean', default: false, doc: 'Allow a replica outside the ISR to become leader (may lose data).' },
  { name: 'replica.lag.time.max.ms', type: 'long', default: 30000, doc: 'A follower not caught up for this long leaves the ISR.', validate: atLeast(1) as never },
  { name: 'replica.fetch.max.bytes', type: 'int', default: 1048576, doc: 'Bytes per partition a follower fetches.' },
  { name: 'replica.fetch.wait.max.ms', type: 'int', default: 500, doc: 'Max wait of a follower fetch.' },
  { name: 'replica.fetch.min.bytes', type: 'int', default: 1, doc: 'Min bytes of a follower fetch.' },
  { name: 'replica.fetch.backoff.ms', type: 'int', default: 1000, doc: 'Backoff after a failed follower fetch.' },
  { name: 'max.incremental.fetch.session.cache.slots', type: 'int', default: 1000, doc: 'Fetch sessions (KIP-227) this broker keeps; 0 = none (every fetch is a full one).', validate: atLeast(0) as never },
  { name: 'replica.high.watermark.checkpoint.interval.ms', type: 'long', default: 5000, doc: 'How often high watermarks are written to disk.' },
  { name: 'controlled.shutdown.enable', type: 'boolean', default: true, doc: 'Move leadership away before stopping.' },
  { name: 'controlled.shutdown.max.retries', type: 'int', default: 3, doc: 'Attempts of controlled shutdown.' },
  { name: 'controlled.shutdown.retry.backoff.ms', type: 'long', default: 5000, doc: 'Backoff between controlled shutdown attempts.' },
  { name: 'auto.leader.rebalance.enable', type: 'boolean', default: true, doc: 'Move leadership back to preferred replicas periodically.' },
  { name: 'leader.imbalance.check.interval.seconds', type: 'long', default: 300, doc: 'Interval of the leader imbalance check.' },
  { name: 'leader.imbalance.per.broker.percentage', type: 'int', default: 10, doc: 'Allowed leader imbalance per broker.' },
  { name: 'controller.socket.timeout.ms', type: 'int', default: 30000, doc: 'Timeout of controller-to-broker requests.' },
  { name: 'offsets.topic.replication.factor', type: 'int', default: 3, doc: 'Replication factor of __consumer_offsets.', validate: atLeast(1) as never },
  { name: 'offsets.topic.num.partitions', type: 'int', default: 50, doc: 'Partitions of __consumer_offsets.', validate: atLeast(1) as never },
  { name: 'group.initial.rebalance.delay.ms', type: 'int', default: 3000, doc: 'Delay of the first rebalance of an empty group.' },
  { name: 'group.min.session.timeout.ms', type: 'int', default: 6000, doc: 'Smallest session timeout a group member may ask for.', validate: atLeast(1) as never },
  { name: 'group.max.session.timeout.ms', type: 'int', default: 1800000, doc: 'Largest session timeout a group member may ask for.', validate: atLeast(1) as never },
  { name: 'offsets.retention.minutes', type: 'int', default: 10080, doc: 'How long committed offsets of an empty group are kept.', validate: atLeast(1) as never },
  { name: 'offset.metadata.max.bytes', type: 'int', default: 4096, doc: 'Largest metadata string of a committed offset.', validate: atLeast(0) as never },
  { name: 'message.max.bytes', type: 'int', default: 1048588, doc: 'Largest record batch accepted.', validate: atLeast(0) as never },
  { name: 'socket.request.max.bytes', type: 'int', default: 104857600, doc: 'Largest request frame; a larger one closes the connection. Memory follows the bytes received, not the announced size.', validate: atLeast(1) as never },
  { name: 'max.connections', type: 'int', default: 2147483647, doc: 'Connections the broker accepts on its client listeners together; more are closed at once (the inter-broker listener is not counted).', validate: atLeast(0) as never },
  { name: 'max.connections.per.ip', type: 'int', default: 2147483647, doc: 'Connections accepted from one IP address; more are closed at once.', validate: atLeast(0) as never },
  { name: 'max.connections.per.ip.overrides', type: 'string', default: '', doc: 'Per-IP exceptions to max.connections.per.ip: ip:count,ip:count.' },
  { name: 'connections.max.idle.ms', type: 'long', default: 600000, doc: 'A connection with no traffic in either direction for this long is closed.', validate: atLeast(1) as never },
  { name: 'queued.max.requests', type: 'int', default: 500, doc: 'Requests being handled across all connections; at the limit, connections stop being read until some finish.', validate: atLeast(1) as never },
  { name: 'connection.max.unsent.bytes', type: 'int', default: 1048576, doc: 'gregor: a connection whose unsent responses exceed this stops being read (muted) until the client reads them, so a slow reader cannot pin memory.', validate: atLeast(1) as never },
  { name: 'fetch.max.bytes', type: 'int', default: 57671680, doc: 'Largest consumer fetch response the broker builds, whatever the request asks (the first batch may exceed it, so consumers progress).', validate: atLeast(0) as never },
  { name: 'replica.fetch.response.max.bytes', type: 'int', default: 10485760, doc: 'Largest follower fetch response the broker builds.', validate: atLeast(0) as never },
  { name: 'log.segment.bytes', type: 'int', default: 1073741824, doc: 'Segment size before a roll.', validate: atLeast(14) as never },
  { name: 'log.index.interval.bytes', type: 'int', default: 4096, doc: 'Bytes between offset index entries.', validate: atLeast(0) as never },
  { name: 'log.index.size.max.bytes', type: 'int', default: 10485760, doc: 'Max size of an offset index.', validate: atLeast(4) as never },
  { name: 'log.retention.hours', type: 'int', default: 168, doc: 'Retention time in hours.' },
  { name: 'log.retention.minutes', type: 'int', default: null, doc: 'Retention time in minutes (overrides hours).' },
  { name: 'log.retention.ms', type: 'long', default: null, doc: 'Retention time in ms (overrides minutes); -1 = forever.' },
  { name: 'log.retention.bytes', type: 'long', default: -1, doc: 'Max partition size before old segments are deleted; -1 = no limit.' },
  { name: 'log.retention.check.interval.ms', type: 'long', default: 300000, doc: 'How often retention runs.', validate: atLeast(1) as never },
  { name: 'log.roll.hours', type: 'int', default: 168, doc: 'Max segment age before a roll, in hours.' },
  { name: 'log.roll.ms', type: 'long', default: null, doc: 'Max segment age before a roll (overrides hours).' },
  { name: 'log.segment.delete.delay.ms', type: 'long', default: 60000, doc: 'Delay before deleted segment files are removed.' },
  { name: 'log.flush.interval.messages', type: 'long', default: null, doc: 'fsync a log once this many messages are unflushed, before the append is answered (topic default of flush.messages). Unset = never (Kafka: Long.MAX_VALUE); durability comes from replication.', validate: atLeast(1) as never },
  { name: 'log.flush.interval.ms', type: 'long', default: null, doc: 'fsync a log with unflushed messages once its last flush is this old (topic default of flush.ms); unset = log.flush.scheduler.interval.ms.' },
  { name: 'log.flush.scheduler.interval.ms', type: 'long', default: null, doc: 'How often logs are checked against flush.ms. Unset = never (Kafka: Long.MAX_VALUE), but gregor checks at least every second, so a topic flush.ms is honoured even then.' },
  { name: 'log.message.timestamp.type', type: 'string', default: 'CreateTime', doc: 'CreateTime keeps producers\' timestamps; LogAppendTime stamps batches with the leader\'s clock.', validate: oneOf('CreateTime', 'LogAppendTime') as never },
  { name: 'log.message.timestamp.difference.max.ms', type: 'long', default: Number.MAX_SAFE_INTEGER, doc: 'CreateTime records further than this from the leader\'s clock are refused with INVALID_TIMESTAMP.', validate: atLeast(0) as never },
  { name: 'log.message.downconversion.enable', type: 'boolean', default: true, doc: 'false: Fetch v0-3 consumers get UNSUPPORTED_VERSION instead of records down-converted to the old message format (KIP-283); topic default of message.downconversion.enable.' },
  { name: 'log.flush.offset.checkpoint.interval.ms', type: 'int', default: 60000, doc: 'How often recovery points are written.' },
  { name: 'log.cleanup.policy', type: 'list', default: ['delete'], doc: 'delete or compact.' },
  { name: 'producer.id.expiration.ms', type: 'int', default: 86400000, doc: 'An idempotent producer\'s state in a partition is dropped after this long without a write from it (Kafka 3.x; 2.4 used transactional.id.expiration.ms).', validate: atLeast(1) as never },
  { name: 'producer.id.expiration.check.interval.ms', type: 'int', default: 600000, doc: 'How often expired producer ids are removed.', validate: atLeast(1) as never },
  { name: 'http.host', type: 'string', default: '127.0.0.1', doc: 'gregor: address of the HTTP admin server.' },
  { name: 'http.port', type: 'int', default: 8780, doc: 'gregor: port of the HTTP admin server (8780, off 8081, which Schema Registry uses); -1 disables it.', validate: between(-1, 65535) as never },
  { name: 'http.auth.token', type: 'password', default: null, doc: 'gregor: bearer token required by every HTTP admin write (POST/PATCH/DELETE), by record reads and by user listings; unset = open, allowed only while http.host is a loopback address.' },
  { name: 'http.auth.token.file', type: 'string', default: null, doc: 'gregor: when http.auth.token is unset, the token is read from this file; a missing file is created with a random token (mode 600), so brokers sharing the file share the token (compose).' },
  { name: 'http.allowed.hosts', type: 'list', default: null, doc: 'gregor: Host header values the HTTP admin answers (DNS-rebinding guard); default: localhost, loopback addresses, http.host, the advertised hosts and this machine\'s name; * = any.' },
  { name: 'http.ssl.keystore.location', type: 'string', default: null, doc: 'gregor: serve the HTTP admin over HTTPS with this keystore (PEM key and certificate chain).' },
  { name: 'http.ssl.keystore.type', type: 'string', default: 'PEM', doc: 'gregor: PEM or PKCS12.' },
  { name: 'http.ssl.keystore.password', type: 'password', default: null, doc: 'gregor: password of a PKCS12 HTTPS keystore.' },
  { name: 'http.ssl.key.password', type: 'password', default: null, doc: 'gregor: password of an encrypted PEM key of the HTTPS keystore.' },
  // Accepted for compatibility with Kafka's stock server.properties; no effect in gregor.
  ...[
    'num.network.threads', 'num.io.threads', 'socket.send.buffer.bytes', 'socket.receive.buffer.bytes',
    'num.recovery.threads.per.data.dir', 'transaction.state.log.replication.factor', 'transaction.state.log.min.isr',
    'num.replica.fetchers',
    'background.threads', 'compression.type', 'zookeeper.set.acl', 'log.message.format.version',
    'inter.broker.protocol.version',
  ].map((name) => ({ name, type: 'string' as const, default: null, doc: 'Accepted for compatibility; no effect.', compat: true })),
];

const BY_NAME = new Map(KEYS.map((k) => [k.name, k]));

export function knownConfigNames(): string[] {
  return KEYS.map((k) => k.name);
}

/** The definition of one broker setting; undefined for a name gregor does not know. */
export function brokerConfigKey(name: string): (ConfigKey & { compat?: boolean }) | undefined {
  return BY_NAME.get(name);
}

/** Every broker setting with its type, default and meaning (docs/configuration.md is generated from this). */
export function brokerConfigDocs(): { name: string; type: string; default: string; doc: string; compat: boolean }[] {
  return KEYS.map((k) => ({
    name: k.name,
    type: k.type,
    default: k.default === undefined ? '(required)' : k.default === null ? '' : Array.isArray(k.default) ? k.default.join(',') : String(k.default),
    doc: k.doc,
    compat: k.compat === true,
  }));
}

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

/** Settings from a server.properties file. */
export function readPropertiesFile(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`Cannot read configuration file ${path}: ${(err as Error).message}`);
  }
  return parseProperties(text);
}

/** Variables of Kafka's start scripts and images that are not broker settings. */
const NOT_SETTINGS = /^KAFKA_(OPTS|HEAP_OPTS|JVM_PERFORMANCE_OPTS|GC_LOG_OPTS|LOG4J_OPTS|JMX_OPTS|JMX_HOSTNAME|DEBUG|VERSION|HOME|LOG4J_ROOT_LOGLEVEL|LOG4J_LOGGERS|TOOLS_LOG4J_LOGLEVEL)$/;

/**
 * Settings from the environment, in the conventions of the common Kafka images:
 * - Confluent's and Kafka's: KAFKA_LOG_DIRS -> log.dirs (prefix KAFKA_, lower case, '_' -> '.',
 *   '__' -> '_' and '___' -> '-' for names with underscores or dashes);
 * - Bitnami's: KAFKA_CFG_LOG_DIRS -> log.dirs (prefix KAFKA_CFG_, same rules), which win over the former.
 * Script variables such as KAFKA_HEAP_OPTS are not settings and are skipped.
 */
export function propertiesFromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  const plain = new Map<string, string>();
  const bitnami = new Map<string, string>();
  for (const [k, v] of Object.entries(env)) {
    if (!k.startsWith('KAFKA_') || v === undefined || NOT_SETTINGS.test(k)) continue;
    if (k.startsWith('KAFKA_CFG_')) bitnami.set(envToName(k.slice(10)), v);
    else plain.set(envToName(k.slice(6)), v);
  }
  return new Map([...plain, ...bitnami]);
}

function envToName(s: string): string {
  return s.toLowerCase().replace(/___/g, '\u0001').replace(/__/g, '\u0000').replace(/_/g, '.').replace(/\u0000/g, '_').replace(/\u0001/g, '-');
}

/** `--override key=value` flags (as kafka-server-start.sh takes them). */
export function propertiesFromOverrides(overrides: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of overrides) {
    const i = o.indexOf('=');
    if (i <= 0) throw new ConfigError(`Invalid override "${o}": expected key=value`);
    out.set(o.slice(0, i).trim(), o.slice(i + 1));
  }
  return out;
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
