import type { PartitionState } from '@gregor/common';
/**
 * Kafka's exact znode payloads (kafka.zk.ZkData, 2.4): encoders write what Kafka writes, field order included;
 * decoders accept every version Kafka accepts and throw CorruptDataError naming the znode on anything else.
 */
import { randomBytes } from 'node:crypto';
import { CorruptDataError } from '@gregor/common';

type Json = Record<string, unknown>;

function fail(what: string, problem: string): never {
  throw new CorruptDataError(`${what}: ${problem}`);
}

function parseObject(data: Buffer | string, what: string): Json {
  const text = typeof data === 'string' ? data : data.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail(what, `not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(what, `expected a JSON object, got ${text.slice(0, 200)}`);
  return value as Json;
}

function int(obj: Json, key: string, what: string): number {
  const value = obj[key];
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(what, `"${key}" must be an integer, got ${JSON.stringify(value)}`);
  return value;
}

function intArray(value: unknown, what: string, key: string): number[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isInteger(v))) {
    fail(what, `"${key}" must be an array of integers, got ${JSON.stringify(value)}`);
  }
  return value as number[];
}

function str(obj: Json, key: string, what: string): string {
  const value = obj[key];
  if (typeof value !== 'string') fail(what, `"${key}" must be a string, got ${JSON.stringify(value)}`);
  return value;
}

function object(obj: Json, key: string, what: string): Json {
  const value = obj[key];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(what, `"${key}" must be an object, got ${JSON.stringify(value)}`);
  return value as Json;
}

/** Kafka writes millisecond timestamps as decimal strings; accept numbers too. */
function timestamp(obj: Json, key: string, what: string): number {
  const value = obj[key];
  const ms = typeof value === 'string' ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) fail(what, `"${key}" must be a millisecond timestamp, got ${JSON.stringify(value)}`);
  return ms;
}

function decimal(data: Buffer | string, what: string): number {
  const text = (typeof data === 'string' ? data : data.toString('utf8')).trim();
  if (!/^-?\d+$/.test(text)) fail(what, `expected a decimal integer, got ${JSON.stringify(text.slice(0, 100))}`);
  return Number(text);
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

// ---- /brokers/ids/<id> -------------------------------------------------------------------------

export interface BrokerEndpoint {
  /** Listener name, e.g. PLAINTEXT. */
  listener: string;
  host: string;
  port: number;
  /** PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL. */
  securityProtocol: string;
}

export interface BrokerRegistration {
  brokerId: number;
  endpoints: BrokerEndpoint[];
  /** -1 when JMX is off. */
  jmxPort: number;
  /** Registration time, ms. */
  timestamp: number;
  rack: string | null;
  /**
   * gregor: the broker's HTTP admin API (`http://host:port`), so that one admin server can reach the
   * others (as tools reach Kafka's JMX through `jmx_port`). Absent when the broker runs none.
   * Kafka's own decoder ignores the unknown field.
   */
  adminUrl?: string | null;
}

const ENDPOINT = /^([A-Za-z0-9_.-]+):\/\/(\[[^\]]*\]|[^:]*):(\d+)$/;

/** Version 4: endpoints, listener_security_protocol_map, and host/port of the first PLAINTEXT endpoint for old clients. */
export function encodeBrokerRegistration(broker: Omit<BrokerRegistration, 'brokerId'>): Buffer {
  const plaintext = broker.endpoints.find((e) => e.securityProtocol === 'PLAINTEXT');
  const protocolMap: Record<string, string> = {};
  for (const e of broker.endpoints) protocolMap[e.listener] = e.securityProtocol;
  const value: Json = {
    listener_security_protocol_map: protocolMap,
    endpoints: broker.endpoints.map((e) => `${e.listener}://${e.host}:${e.port}`),
  };
  if (broker.rack !== null) value.rack = broker.rack;
  if (broker.adminUrl) value.gregor_admin_url = broker.adminUrl;
  Object.assign(value, {
    jmx_port: broker.jmxPort,
    host: plaintext ? plaintext.host : null,
    timestamp: String(broker.timestamp),
    port: plaintext ? plaintext.port : -1,
    version: 4,
  });
  return json(value);
}

export function decodeBrokerRegistration(brokerId: number, data: Buffer | string): BrokerRegistration {
  const what = `/brokers/ids/${brokerId}`;
  const obj = parseObject(data, what);
  const version = int(obj, 'version', what);
  if (version < 1 || version > 5) fail(what, `unsupported version ${version}`);
  const protocolMap = obj.listener_security_protocol_map === undefined || obj.listener_security_protocol_map === null ? null : object(obj, 'listener_security_protocol_map', what);
  let endpoints: BrokerEndpoint[];
  if (version === 1) {
    endpoints = [{ listener: 'PLAINTEXT', host: str(obj, 'host', what), port: int(obj, 'port', what), securityProtocol: 'PLAINTEXT' }];
  } else {
    const raw = obj.endpoints;
    if (!Array.isArray(raw)) fail(what, `"endpoints" must be an array, got ${JSON.stringify(raw)}`);
    endpoints = raw.map((text) => {
      const match = typeof text === 'string' ? ENDPOINT.exec(text) : null;
      if (!match) fail(what, `bad endpoint ${JSON.stringify(text)}`);
      const listener = match[1]!;
      const protocol = protocolMap ? protocolMap[listener] : listener;
      if (typeof protocol !== 'string') fail(what, `no security protocol for listener ${listener}`);
      return { listener, host: match[2]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[3]), securityProtocol: protocol };
    });
  }
  const rack = obj.rack;
  if (rack !== undefined && rack !== null && typeof rack !== 'string') fail(what, `"rack" must be a string`);
  return {
    brokerId,
    endpoints,
    jmxPort: obj.jmx_port === undefined ? -1 : int(obj, 'jmx_port', what),
    timestamp: obj.timestamp === undefined ? 0 : timestamp(obj, 'timestamp', what),
    rack: typeof rack === 'string' ? rack : null,
    ...(typeof obj.gregor_admin_url === 'string' ? { adminUrl: obj.gregor_admin_url } : {}),
  };
}

// ---- /brokers/topics/<t> -----------------------------------------------------------------------

/** partition → replica broker ids; the first replica is the preferred leader. */
export type ReplicaAssignment = Map<number, number[]>;

export interface TopicAssignment {
  partitions: ReplicaAssignment;
  /** Reassignment in progress (2.4+); empty otherwise. */
  addingReplicas: ReplicaAssignment;
  removingReplicas: ReplicaAssignment;
}

/** Partitions in order; `skipEmpty` leaves out empty lists (adding/removing of partitions not moving, as Kafka). */
function assignmentToJson(assignment: ReplicaAssignment, skipEmpty = false): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [p, replicas] of [...assignment].sort((a, b) => a[0] - b[0])) if (!skipEmpty || replicas.length > 0) out[String(p)] = replicas;
  return out;
}

function assignmentFromJson(value: Json, what: string, key: string): ReplicaAssignment {
  const out: ReplicaAssignment = new Map();
  for (const [p, replicas] of Object.entries(value)) {
    if (!/^\d+$/.test(p)) fail(what, `bad partition "${p}" in "${key}"`);
    out.set(Number(p), intArray(replicas, what, `${key}.${p}`));
  }
  return out;
}

/**
 * Writes version 2 (Kafka 2.4+): "adding_replicas"/"removing_replicas" name only the partitions being
 * reassigned (KIP-455), `{}` when none.
 */
export function encodeTopicAssignment(assignment: TopicAssignment | ReplicaAssignment): Buffer {
  const full: TopicAssignment = assignment instanceof Map ? { partitions: assignment, addingReplicas: new Map(), removingReplicas: new Map() } : assignment;
  return json({
    version: 2,
    partitions: assignmentToJson(full.partitions),
    adding_replicas: assignmentToJson(full.addingReplicas, true),
    removing_replicas: assignmentToJson(full.removingReplicas, true),
  });
}

/** Accepts version 1 (≤2.3) and version 2. */
export function decodeTopicAssignment(topic: string, data: Buffer | string): TopicAssignment {
  const what = `/brokers/topics/${topic}`;
  const obj = parseObject(data, what);
  const version = int(obj, 'version', what);
  if (version !== 1 && version !== 2) fail(what, `unsupported version ${version}`);
  return {
    partitions: assignmentFromJson(object(obj, 'partitions', what), what, 'partitions'),
    addingReplicas: obj.adding_replicas === undefined ? new Map() : assignmentFromJson(object(obj, 'adding_replicas', what), what, 'adding_replicas'),
    removingReplicas: obj.removing_replicas === undefined ? new Map() : assignmentFromJson(object(obj, 'removing_replicas', what), what, 'removing_replicas'),
  };
}

// ---- /brokers/topics/<t>/partitions/<p>/state ---------------------------------------------------

/** The state znode's content: Kafka's LeaderIsrAndControllerEpoch, one type for the whole house. */
export type { PartitionState };

export function encodePartitionState(state: PartitionState): Buffer {
  return json({ controller_epoch: state.controllerEpoch, leader: state.leader, version: 1, leader_epoch: state.leaderEpoch, isr: state.isr });
}

export function decodePartitionState(topic: string, partition: number, data: Buffer | string): PartitionState {
  const what = `/brokers/topics/${topic}/partitions/${partition}/state`;
  const obj = parseObject(data, what);
  const version = int(obj, 'version', what);
  if (version !== 1) fail(what, `unsupported version ${version}`);
  return {
    leader: int(obj, 'leader', what),
    leaderEpoch: int(obj, 'leader_epoch', what),
    isr: intArray(obj.isr, what, 'isr'),
    controllerEpoch: int(obj, 'controller_epoch', what),
  };
}

// ---- /controller, /controller_epoch, /cluster/id ----------------------------------------------------

export interface ControllerRegistration {
  brokerId: number;
  timestamp: number;
}

export function encodeController(brokerId: number, timestampMs: number = Date.now()): Buffer {
  return json({ version: 1, brokerid: brokerId, timestamp: String(timestampMs) });
}

export function decodeController(data: Buffer | string): ControllerRegistration {
  const what = '/controller';
  const text = (typeof data === 'string' ? data : data.toString('utf8')).trim();
  // Kafka 0.8 wrote a bare broker id; KafkaZkClient still accepts it.
  if (/^\d+$/.test(text)) return { brokerId: Number(text), timestamp: 0 };
  const obj = parseObject(text, what);
  return { brokerId: int(obj, 'brokerid', what), timestamp: obj.timestamp === undefined ? 0 : timestamp(obj, 'timestamp', what) };
}

export function encodeControllerEpoch(epoch: number): Buffer {
  return Buffer.from(String(epoch), 'utf8');
}

export function decodeControllerEpoch(data: Buffer | string): number {
  return decimal(data, '/controller_epoch');
}

/** A cluster id as Kafka makes it: a random UUID in URL-safe base64 without padding (22 chars). */
export function generateClusterId(): string {
  return randomBytes(16).toString('base64url');
}

export function encodeClusterId(id: string): Buffer {
  return json({ version: '1', id });
}

export function decodeClusterId(data: Buffer | string): string {
  return str(parseObject(data, '/cluster/id'), 'id', '/cluster/id');
}

// ---- /config/topics/<t>, /config/brokers/<id|<default>>, /config/changes --------------------------

/** Config overrides of one entity (topic or broker); Kafka stores every value as a string. */
export type EntityConfig = Record<string, string>;
/** Topic config overrides. */
export type TopicConfig = EntityConfig;

export function encodeEntityConfig(config: EntityConfig): Buffer {
  return json({ version: 1, config });
}

/** `what` names the znode in errors, e.g. /config/brokers/<default>. */
export function decodeEntityConfig(what: string, data: Buffer | string): EntityConfig {
  const config = object(parseObject(data, what), 'config', what);
  const out: EntityConfig = {};
  for (const [key, value] of Object.entries(config)) {
    if (typeof value !== 'string') fail(what, `config "${key}" must be a string, got ${JSON.stringify(value)}`);
    out[key] = value;
  }
  return out;
}

export function encodeTopicConfig(config: TopicConfig): Buffer {
  return encodeEntityConfig(config);
}

export function decodeTopicConfig(topic: string, data: Buffer | string): TopicConfig {
  return decodeEntityConfig(`/config/topics/${topic}`, data);
}

export function encodeConfigChangeNotification(entityPath: string): Buffer {
  return json({ version: 2, entity_path: entityPath });
}

/**
 * The entity a /config/changes notification announces, as an entity path (`topics/t`, `brokers/1`,
 * `brokers/<default>`): version 2 carries it; version 1 (`entity_type` topics|clients + `entity_name`) is still read.
 */
export function decodeConfigChangeNotification(data: Buffer | string): string {
  const what = '/config/changes notification';
  const obj = parseObject(data, what);
  const version = int(obj, 'version', what);
  if (version === 2) return str(obj, 'entity_path', what);
  if (version === 1) return `${str(obj, 'entity_type', what)}/${str(obj, 'entity_name', what)}`;
  fail(what, `unsupported version ${version}`);
}

// ---- partition lists: isr_change_notification, preferred_replica_election, reassign_partitions ------

export interface TopicPartition {
  topic: string;
  partition: number;
}

export function encodePartitionList(partitions: TopicPartition[]): Buffer {
  return json({ version: 1, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition })) });
}

function partitionEntries(data: Buffer | string, what: string): Json[] {
  const raw = parseObject(data, what).partitions;
  if (!Array.isArray(raw) || !raw.every((e) => e !== null && typeof e === 'object')) fail(what, `"partitions" must be an array of objects`);
  return raw as Json[];
}

export function decodePartitionList(data: Buffer | string, what = 'partition list'): TopicPartition[] {
  return partitionEntries(data, what).map((e) => ({ topic: str(e, 'topic', what), partition: int(e, 'partition', what) }));
}

export const encodeIsrChangeNotification = encodePartitionList;
export const decodeIsrChangeNotification = (data: Buffer | string): TopicPartition[] => decodePartitionList(data, '/isr_change_notification');
export const encodePreferredReplicaElection = encodePartitionList;
export const decodePreferredReplicaElection = (data: Buffer | string): TopicPartition[] => decodePartitionList(data, '/admin/preferred_replica_election');

/** Kafka's LogDirUtils event: 1 = a log dir of the broker failed (KIP-112). */
export const LOG_DIR_FAILURE_EVENT = 1;

/** /log_dir_event_notification/log_dir_event_<seq>: `{"version":1,"broker":<id>,"event":1}`. */
export function encodeLogDirEventNotification(brokerId: number, event: number = LOG_DIR_FAILURE_EVENT): Buffer {
  return json({ version: 1, broker: brokerId, event });
}

export function decodeLogDirEventNotification(data: Buffer | string): { brokerId: number; event: number } {
  const what = '/log_dir_event_notification';
  const o = parseObject(data, what);
  return { brokerId: int(o, 'broker', what), event: int(o, 'event', what) };
}

export interface PartitionReassignment extends TopicPartition {
  replicas: number[];
}

export function encodeReassignment(partitions: PartitionReassignment[]): Buffer {
  return json({ version: 1, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })) });
}

export function decodeReassignment(data: Buffer | string): PartitionReassignment[] {
  const what = '/admin/reassign_partitions';
  return partitionEntries(data, what).map((e) => ({ topic: str(e, 'topic', what), partition: int(e, 'partition', what), replicas: intArray(e.replicas, what, 'replicas') }));
}

// ---- old consumer: /consumers/<g>/ids|owners|offsets -------------------------------------------

export type SubscriptionPattern = 'static' | 'white_list' | 'black_list';

export interface ConsumerRegistration {
  /** topic (or regex for white_list/black_list) → number of streams */
  subscription: Record<string, number>;
  pattern: SubscriptionPattern;
  timestamp: number;
}

export function encodeConsumerRegistration(registration: ConsumerRegistration): Buffer {
  return json({ version: 1, subscription: registration.subscription, pattern: registration.pattern, timestamp: String(registration.timestamp) });
}

export function decodeConsumerRegistration(data: Buffer | string, what = 'consumer registration'): ConsumerRegistration {
  const obj = parseObject(data, what);
  const subscription: Record<string, number> = {};
  for (const [topic, streams] of Object.entries(object(obj, 'subscription', what))) {
    if (typeof streams !== 'number' || !Number.isInteger(streams) || streams < 1) fail(what, `stream count for "${topic}" must be a positive integer`);
    subscription[topic] = streams;
  }
  const pattern = str(obj, 'pattern', what);
  if (pattern !== 'static' && pattern !== 'white_list' && pattern !== 'black_list') fail(what, `unknown pattern "${pattern}"`);
  return { subscription, pattern, timestamp: obj.timestamp === undefined ? 0 : timestamp(obj, 'timestamp', what) };
}

/** Owner znode text: `<consumerId>-<threadIndex>`. */
export function encodeConsumerOwner(consumerThreadId: string): Buffer {
  return Buffer.from(consumerThreadId, 'utf8');
}

export function decodeConsumerOwner(data: Buffer | string): string {
  return (typeof data === 'string' ? data : data.toString('utf8')).trim();
}

/** Offset znode text: the next offset to consume, in decimal. */
export function encodeConsumerOffset(offset: bigint | number): Buffer {
  return Buffer.from(String(offset), 'utf8');
}

export function decodeConsumerOffset(data: Buffer | string): bigint {
  const text = (typeof data === 'string' ? data : data.toString('utf8')).trim();
  if (!/^-?\d+$/.test(text)) fail('consumer offset', `expected a decimal integer, got ${JSON.stringify(text.slice(0, 100))}`);
  return BigInt(text);
}
