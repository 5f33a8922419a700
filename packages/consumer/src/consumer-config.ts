import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError } from '@gregor/common';

export type AutoOffsetReset = 'smallest' | 'largest';
export type OffsetsStorage = 'zookeeper' | 'kafka';
export type AssignmentStrategy = 'range' | 'roundrobin';

/** The old high-level consumer's settings (kafka.consumer.ConsumerConfig, 0.10), under their Kafka names. */
export interface ConsumerConfig {
  groupId: string;
  /** The id registered under /consumers/<group>/ids: generated, or `<group>_<consumer.id>`. */
  consumerId: string;
  zookeeperConnect: string;
  zookeeperSessionTimeoutMs: number;
  zookeeperConnectionTimeoutMs: number;
  zookeeperSyncTimeMs: number;
  autoCommitEnable: boolean;
  autoCommitIntervalMs: number;
  rebalanceMaxRetries: number;
  rebalanceBackoffMs: number;
  refreshLeaderBackoffMs: number;
  fetchMessageMaxBytes: number;
  fetchMinBytes: number;
  fetchWaitMaxMs: number;
  socketTimeoutMs: number;
  queuedMaxMessageChunks: number;
  consumerTimeoutMs: number;
  autoOffsetReset: AutoOffsetReset;
  offsetsStorage: OffsetsStorage;
  dualCommitEnabled: boolean;
  offsetsCommitMaxRetries: number;
  /** Pause before retrying a request to the offset manager (Kafka's offsets channel). */
  offsetsChannelBackoffMs: number;
  /** Time a request to the offset manager may wait for its answer. */
  offsetsChannelSocketTimeoutMs: number;
  partitionAssignmentStrategy: AssignmentStrategy;
  numConsumerFetchers: number;
  excludeInternalTopics: boolean;
  clientId: string;
}

export type ConsumerProperties = Readonly<Record<string, string | number | boolean | undefined>>;

/** Every accepted name; anything else is rejected (a typo must not silently fall back to a default). */
const KNOWN = new Set([
  'group.id',
  'consumer.id',
  'zookeeper.connect',
  'zookeeper.session.timeout.ms',
  'zookeeper.connection.timeout.ms',
  'zookeeper.sync.time.ms',
  'auto.commit.enable',
  'auto.commit.interval.ms',
  'rebalance.max.retries',
  'rebalance.backoff.ms',
  'refresh.leader.backoff.ms',
  'fetch.message.max.bytes',
  'fetch.min.bytes',
  'fetch.wait.max.ms',
  'socket.timeout.ms',
  'socket.receive.buffer.bytes',
  'queued.max.message.chunks',
  'consumer.timeout.ms',
  'auto.offset.reset',
  'offsets.storage',
  'dual.commit.enabled',
  'offsets.channel.backoff.ms',
  'offsets.channel.socket.timeout.ms',
  'offsets.commit.max.retries',
  'partition.assignment.strategy',
  'num.consumer.fetchers',
  'exclude.internal.topics',
  'client.id',
]);

class Props {
  readonly #props: ConsumerProperties;
  constructor(props: ConsumerProperties) {
    this.#props = props;
  }

  raw(name: string): string | undefined {
    const v = this.#props[name];
    return v === undefined ? undefined : String(v).trim();
  }

  string(name: string, fallback?: string): string {
    const v = this.raw(name);
    if (v === undefined || v === '') {
      if (fallback === undefined) throw new ConfigError(`consumer config "${name}" is required`);
      return fallback;
    }
    return v;
  }

  int(name: string, fallback: number, min: number, max = 2_147_483_647): number {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    if (!/^-?\d+$/.test(v)) throw new ConfigError(`consumer config "${name}" must be an integer, got "${v}"`);
    const n = Number(v);
    if (n < min || n > max) throw new ConfigError(`consumer config "${name}" must be between ${min} and ${max}, got ${n}`);
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    if (v !== 'true' && v !== 'false') throw new ConfigError(`consumer config "${name}" must be true or false, got "${v}"`);
    return v === 'true';
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(v)) throw new ConfigError(`consumer config "${name}" must be one of ${allowed.join(', ')}, got "${v}"`);
    return v as T;
  }
}

const OFFSET_RESET_ALIASES: Record<string, AutoOffsetReset> = { smallest: 'smallest', earliest: 'smallest', largest: 'largest', latest: 'largest' };

/** Kafka's generated id: `<group>_<hostname>-<nowMs>-<first 8 hex digits of a random UUID>`. */
export function generateConsumerId(groupId: string, now = Date.now()): string {
  return `${groupId}_${hostname()}-${now}-${randomUUID().slice(0, 8)}`;
}

const SEGMENT = /^[^/]+$/;

/** Builds and validates a ConsumerConfig from Kafka-named properties, with Kafka's defaults. */
export function consumerConfig(properties: ConsumerProperties): ConsumerConfig {
  for (const name of Object.keys(properties)) {
    if (properties[name] !== undefined && !KNOWN.has(name)) throw new ConfigError(`unknown consumer config "${name}"`);
  }
  const p = new Props(properties);
  const groupId = p.string('group.id');
  if (!SEGMENT.test(groupId) || groupId === '.' || groupId === '..') throw new ConfigError(`consumer config "group.id" must not contain "/", got "${groupId}"`);
  const givenId = p.raw('consumer.id');
  if (givenId !== undefined && (!SEGMENT.test(givenId) || givenId === '')) throw new ConfigError(`consumer config "consumer.id" must be non-empty without "/", got "${givenId}"`);
  const zookeeperConnect = p.string('zookeeper.connect');
  if (!/^[^,\s]+:\d+(,[^,\s]+:\d+)*(\/\S*)?$/.test(zookeeperConnect)) {
    throw new ConfigError(`consumer config "zookeeper.connect" must be host:port[,host:port...][/chroot], got "${zookeeperConnect}"`);
  }
  const sessionTimeout = p.int('zookeeper.session.timeout.ms', 6000, 1);
  const syncTime = p.int('zookeeper.sync.time.ms', 2000, 0);
  const socketTimeoutMs = p.int('socket.timeout.ms', 30_000, 1);
  const fetchWaitMaxMs = p.int('fetch.wait.max.ms', 100, 0);
  if (fetchWaitMaxMs > socketTimeoutMs) {
    throw new ConfigError(`consumer config "fetch.wait.max.ms" (${fetchWaitMaxMs}) must not exceed "socket.timeout.ms" (${socketTimeoutMs})`);
  }
  const offsetsStorage = p.oneOf<OffsetsStorage>('offsets.storage', 'zookeeper', ['zookeeper', 'kafka']);
  // Validated for shape only (sockets use the system's buffer sizes).
  p.int('socket.receive.buffer.bytes', 65_536, 1);
  const config: ConsumerConfig = {
    groupId,
    consumerId: givenId === undefined ? generateConsumerId(groupId) : `${groupId}_${givenId}`,
    zookeeperConnect,
    zookeeperSessionTimeoutMs: sessionTimeout,
    zookeeperConnectionTimeoutMs: p.int('zookeeper.connection.timeout.ms', sessionTimeout, 1),
    zookeeperSyncTimeMs: syncTime,
    autoCommitEnable: p.bool('auto.commit.enable', true),
    autoCommitIntervalMs: p.int('auto.commit.interval.ms', 60_000, 1),
    rebalanceMaxRetries: p.int('rebalance.max.retries', 4, 1),
    rebalanceBackoffMs: p.int('rebalance.backoff.ms', syncTime, 0),
    refreshLeaderBackoffMs: p.int('refresh.leader.backoff.ms', 200, 0),
    fetchMessageMaxBytes: p.int('fetch.message.max.bytes', 1_048_576, 1),
    fetchMinBytes: p.int('fetch.min.bytes', 1, 0),
    fetchWaitMaxMs,
    socketTimeoutMs,
    queuedMaxMessageChunks: p.int('queued.max.message.chunks', 2, 1),
    consumerTimeoutMs: p.int('consumer.timeout.ms', -1, -1),
    // The new consumer's names (earliest, latest) mean the same here.
    autoOffsetReset: OFFSET_RESET_ALIASES[p.oneOf('auto.offset.reset', 'largest', ['smallest', 'largest', 'earliest', 'latest'])],
    offsetsStorage,
    dualCommitEnabled: p.bool('dual.commit.enabled', offsetsStorage === 'kafka'),
    offsetsCommitMaxRetries: p.int('offsets.commit.max.retries', 5, 0),
    offsetsChannelBackoffMs: p.int('offsets.channel.backoff.ms', 1000, 0),
    offsetsChannelSocketTimeoutMs: p.int('offsets.channel.socket.timeout.ms', 10_000, 1),
    partitionAssignmentStrategy: p.oneOf<AssignmentStrategy>('partition.assignment.strategy', 'range', ['range', 'roundrobin']),
    numConsumerFetchers: p.int('num.consumer.fetchers', 1, 1),
    excludeInternalTopics: p.bool('exclude.internal.topics', true),
    clientId: p.string('client.id', groupId),
  };
  return config;
}
