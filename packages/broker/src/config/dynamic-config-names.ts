/**
 * Which broker settings Kafka 2.4 lets AdminClient change at run time (DynamicBrokerConfig), and where.
 * gregor updates a setting dynamically only if it knows the name and Kafka lists it as cluster-wide
 * or dynamic-only; every other known setting is read-only (described with read_only=true).
 */

/** Settable only in /config/brokers/<id> (never at <default>): listener and security settings. */
const PER_BROKER_ONLY = new Set([
  'listeners',
  'advertised.listeners',
  'listener.security.protocol.map',
  'principal.builder.class',
  ...[
    'protocol', 'provider', 'cipher.suites', 'enabled.protocols', 'keystore.type', 'keystore.location', 'keystore.password',
    'key.password', 'truststore.type', 'truststore.location', 'truststore.password', 'keymanager.algorithm',
    'trustmanager.algorithm', 'endpoint.identification.algorithm', 'secure.random.implementation', 'client.auth',
  ].map((n) => `ssl.${n}`),
  'sasl.mechanism.inter.broker.protocol',
  'sasl.jaas.config',
  'sasl.enabled.mechanisms',
  ...['service.name', 'kinit.cmd', 'ticket.renew.window.factor', 'ticket.renew.jitter', 'min.time.before.relogin', 'principal.to.local.rules'].map((n) => `sasl.kerberos.${n}`),
  ...['window.factor', 'window.jitter', 'min.period.seconds', 'buffer.seconds'].map((n) => `sasl.login.refresh.${n}`),
]);

/** Listener-level settings that stay cluster-wide under a `listener.name.<l>.` prefix. */
const CLUSTER_LEVEL_LISTENER_CONFIGS = new Set(['max.connections']);

/** Settable per broker or at <default>. */
const CLUSTER_WIDE = new Set([
  'max.connections',
  'max.connections.per.ip',
  'max.connections.per.ip.overrides',
  'num.io.threads',
  'num.network.threads',
  'num.replica.fetchers',
  'num.recovery.threads.per.data.dir',
  'background.threads',
  'metric.reporters',
  ...['threads', 'dedupe.buffer.size', 'io.buffer.load.factor', 'io.buffer.size', 'io.max.bytes.per.second', 'backoff.ms'].map((n) => `log.cleaner.${n}`),
  // Topic-default synonyms (LogConfig.TopicConfigSynonyms) except log.message.format.version.
  'log.segment.bytes',
  'log.roll.ms',
  'log.roll.jitter.ms',
  'log.index.size.max.bytes',
  'log.flush.interval.messages',
  'log.flush.interval.ms',
  'log.retention.bytes',
  'log.retention.ms',
  'message.max.bytes',
  'log.index.interval.bytes',
  'log.cleaner.delete.retention.ms',
  'log.cleaner.min.compaction.lag.ms',
  'log.cleaner.max.compaction.lag.ms',
  'log.segment.delete.delay.ms',
  'log.cleaner.min.cleanable.ratio',
  'log.cleanup.policy',
  'unclean.leader.election.enable',
  'min.insync.replicas',
  'compression.type',
  'log.preallocate',
  'log.message.timestamp.type',
  'log.message.timestamp.difference.max.ms',
  'log.message.downconversion.enable',
]);

/** Only ever set dynamically (no server.properties meaning of their own in Kafka 2.4). */
const DYNAMIC_ONLY = new Set(['leader.replication.throttled.rate', 'follower.replication.throttled.rate', 'replica.alter.log.dirs.io.max.bytes.per.second']);

const LISTENER_CONFIG = /^listener\.name\.[^.]*\.(.*)$/;

/** Kafka refuses these at <default> ("broker id must be specified"). */
export function isPerBrokerOnly(name: string): boolean {
  const listener = LISTENER_CONFIG.exec(name);
  if (listener) return !CLUSTER_LEVEL_LISTENER_CONFIGS.has(listener[1]!);
  return PER_BROKER_ONLY.has(name);
}

/** Kafka lets a cluster-wide (or dynamic-only) setting change at run time; gregor applies those it knows. */
export function isClusterWideDynamic(name: string): boolean {
  return CLUSTER_WIDE.has(name) || DYNAMIC_ONLY.has(name);
}

/**
 * A broker setting's synonyms, most preferred first (DynamicBrokerConfig.brokerConfigSynonyms): the
 * same value given in other units, or the base name of a listener override.
 */
export function brokerConfigSynonyms(name: string): string[] {
  switch (name) {
    case 'log.roll.ms':
    case 'log.roll.hours':
      return ['log.roll.ms', 'log.roll.hours'];
    case 'log.roll.jitter.ms':
    case 'log.roll.jitter.hours':
      return ['log.roll.jitter.ms', 'log.roll.jitter.hours'];
    case 'log.flush.interval.ms':
      return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
    case 'log.retention.ms':
    case 'log.retention.minutes':
    case 'log.retention.hours':
      return ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'];
  }
  const listener = LISTENER_CONFIG.exec(name);
  return listener ? [name, listener[1]!] : [name];
}
