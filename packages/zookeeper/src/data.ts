import type { PartitionState } from '@gregor/common';
/**
 * Kafka's exact znode payloads (kafka.zk.ZkData, 2.4): encoders write what Kafka writes, field order included;
 * decoders accept every version Kafka accepts and throw CorruptDataError naming the znode on anything else.
 */
import { randomBytes } from 'node:crypto';
import { decimal, fail, int, intArray, json, object, parseObject, str, timestamp, type Json } from './znode-json.js';

export * from './consumer-data.js';
export * from './notification-data.js';

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
