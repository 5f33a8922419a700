import { atLeast, between, oneOf, type ConfigKey } from './config-def.js';

/**
 * Every broker setting gregor understands, with Kafka's names and defaults (Kafka 2.5+ unless noted).
 * `compat: true` settings appear in Kafka's stock server.properties; they are accepted so that file
 * works unchanged, and have no effect in gregor (documented in docs/configuration.md).
 */
export const KEYS: (ConfigKey & { compat?: boolean })[] = [
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
  { name: 'compression.type', type: 'string', default: 'producer', doc: 'Topic default of compression.type: the codec leaders store producers\' batches in (uncompressed, gzip, snappy, lz4, zstd: batches in another codec are recompressed, as Kafka\'s LogValidator does); producer keeps the producer\'s codec.', validate: oneOf('producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd') as never },
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
    'background.threads', 'zookeeper.set.acl',
  ].map((name) => ({ name, type: 'string' as const, default: null, doc: 'Accepted for compatibility; no effect.', compat: true })),
  // Described with Kafka 2.4's defaults, the protocol gregor speaks: tools pick their requests by them
  // (kafka-ui edits topics with IncrementalAlterConfigs only when inter.broker.protocol.version is 2.3 or newer).
  ...['log.message.format.version', 'inter.broker.protocol.version'].map((name) => ({
    name,
    type: 'string' as const,
    default: '2.4-IV1',
    doc: 'Accepted for compatibility and described as set; gregor always speaks Kafka 2.4\'s protocol and writes message format v2.',
    compat: true,
  })),
];

export const BY_NAME = new Map(KEYS.map((k) => [k.name, k]));

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
