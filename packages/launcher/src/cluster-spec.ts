import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '@gregor/common';

/** One broker of a local cluster. */
export interface BrokerSpec {
  id: number;
  /** Address the broker listens on and advertises. Default 127.0.0.1. */
  host: string;
  /** Kafka protocol port. */
  port: number;
  /** HTTP admin port; -1 disables it. */
  httpPort: number;
  /**
   * Port of the INTERNAL listener, the inter-broker one: the only listener that accepts controller
   * and replica requests (no authorizer), so the Kafka port serves clients only. Absent: one listener.
   */
  internalPort?: number;
  /** Extra server.properties entries (Kafka's names), over the launcher's local defaults. */
  properties: Record<string, string>;
}

/** Ports of one ZooKeeper server. */
export interface ZooKeeperPorts {
  clientPort: number;
  peerPort: number;
  electionPort: number;
}

export interface ClusterSpec {
  zookeeper: {
    /** One entry per server; node i (1-based) is entry i - 1. */
    nodes: ZooKeeperPorts[];
    /** Default 2000. */
    tickTime: number;
  };
  brokers: BrokerSpec[];
  /** Properties every broker gets (a broker's own properties win). */
  properties: Record<string, string>;
}

/** The default layout: ZooKeeper on 2181.., brokers 1..N on 127.0.0.1:9092.. (inter-broker 19092..) with HTTP on 8780... */
export function defaultClusterSpec(options: { brokers?: number; zookeepers?: number } = {}): ClusterSpec {
  const brokers = options.brokers ?? 3;
  const zookeepers = options.zookeepers ?? 3;
  requireCount('brokers', brokers);
  requireCount('zookeepers', zookeepers);
  return {
    zookeeper: {
      nodes: Array.from({ length: zookeepers }, (_, i) => ({ clientPort: 2181 + i, peerPort: 2888 + i, electionPort: 3888 + i })),
      tickTime: 2000,
    },
    brokers: Array.from({ length: brokers }, (_, i) => ({ id: i + 1, host: '127.0.0.1', port: 9092 + i, httpPort: 8780 + i, internalPort: 19092 + i, properties: {} })),
    properties: {},
  };
}

function requireCount(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > 99) throw new ConfigError(`${name} must be an integer from 1 to 99, got ${n}`);
}

/**
 * Reads a cluster file (YAML, or JSON by its .json extension):
 *
 * ```yaml
 * zookeeper:
 *   nodes: 1              # or a list of {clientPort, peerPort, electionPort}
 *   clientPort: 22181     # first client port when nodes is a count (peer/election: peerPort, electionPort)
 *   tickTime: 500
 * properties:             # every broker
 *   num.partitions: 3
 * brokers:
 *   - id: 1
 *     host: 127.0.0.1
 *     port: 29092
 *     httpPort: 28081
 *     internalPort: 39092 # optional: inter-broker listener (controller and replica requests only there)
 *     properties: { broker.rack: a }
 * ```
 */
export function readClusterFile(path: string): ClusterSpec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read cluster file ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`cluster file ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  return clusterSpecFrom(raw, path);
}

/** Validates a parsed cluster file; `where` names it in errors. */
export function clusterSpecFrom(raw: unknown, where = 'cluster file'): ClusterSpec {
  const fail = (message: string): never => {
    throw new ConfigError(`${where}: ${message}`);
  };
  if (!isObject(raw)) return fail('must be a mapping with zookeeper and brokers');
  const zk = raw['zookeeper'] ?? {};
  if (!isObject(zk)) return fail('zookeeper must be a mapping');
  const tickTime = optionalInt(zk['tickTime'], 2000, 'zookeeper.tickTime', fail);
  let nodes: ZooKeeperPorts[];
  if (Array.isArray(zk['nodes'])) {
    nodes = zk['nodes'].map((n: unknown, i) => {
      if (!isObject(n)) return fail(`zookeeper.nodes[${i}] must be a mapping`);
      return {
        clientPort: port(n['clientPort'], `zookeeper.nodes[${i}].clientPort`, fail),
        peerPort: port(n['peerPort'] ?? 2888 + i, `zookeeper.nodes[${i}].peerPort`, fail),
        electionPort: port(n['electionPort'] ?? 3888 + i, `zookeeper.nodes[${i}].electionPort`, fail),
      };
    });
  } else {
    const count = optionalInt(zk['nodes'], 3, 'zookeeper.nodes', fail);
    if (count < 1) fail('zookeeper.nodes must be at least 1');
    const client = optionalInt(zk['clientPort'], 2181, 'zookeeper.clientPort', fail);
    const peer = optionalInt(zk['peerPort'], 2888, 'zookeeper.peerPort', fail);
    const election = optionalInt(zk['electionPort'], 3888, 'zookeeper.electionPort', fail);
    nodes = Array.from({ length: count }, (_, i) => ({ clientPort: client + i, peerPort: peer + i, electionPort: election + i }));
  }
  if (nodes.length === 0) fail('zookeeper.nodes must name at least one server');

  const brokerList = raw['brokers'];
  if (!Array.isArray(brokerList) || brokerList.length === 0) return fail('brokers must be a non-empty list');
  const brokers = brokerList.map((b: unknown, i): BrokerSpec => {
    if (!isObject(b)) return fail(`brokers[${i}] must be a mapping`);
    const id = optionalInt(b['id'], i + 1, `brokers[${i}].id`, fail);
    if (id < 0) fail(`brokers[${i}].id must be non-negative`);
    const host = b['host'] ?? '127.0.0.1';
    if (typeof host !== 'string' || host === '') fail(`brokers[${i}].host must be a host name`);
    const httpPort = optionalInt(b['httpPort'], -1, `brokers[${i}].httpPort`, fail);
    if (httpPort !== -1) port(httpPort, `brokers[${i}].httpPort`, fail);
    const spec: BrokerSpec = {
      id,
      host: host as string,
      port: port(b['port'], `brokers[${i}].port`, fail),
      httpPort,
      properties: properties(b['properties'], `brokers[${i}].properties`, fail),
    };
    if (b['internalPort'] !== undefined && b['internalPort'] !== null) spec.internalPort = port(b['internalPort'], `brokers[${i}].internalPort`, fail);
    return spec;
  });
  const ids = brokers.map((b) => b.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) fail(`broker id ${duplicate} appears twice`);
  const used = [
    ...nodes.flatMap((n) => [n.clientPort, n.peerPort, n.electionPort]),
    ...brokers.flatMap((b) => [b.port, ...(b.httpPort === -1 ? [] : [b.httpPort]), ...(b.internalPort === undefined ? [] : [b.internalPort])]),
  ];
  const clash = used.find((p, i) => used.indexOf(p) !== i);
  if (clash !== undefined) fail(`port ${clash} is used twice`);
  return { zookeeper: { nodes, tickTime }, brokers, properties: properties(raw['properties'], 'properties', fail) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optionalInt(v: unknown, fallback: number, name: string, fail: (m: string) => never): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) return fail(`${name} must be an integer, got ${JSON.stringify(v)}`);
  return n;
}

function port(v: unknown, name: string, fail: (m: string) => never): number {
  if (v === undefined || v === null) return fail(`${name} is required`);
  const n = optionalInt(v, 0, name, fail);
  if (n < 1 || n > 65535) fail(`${name} must be a port from 1 to 65535, got ${n}`);
  return n;
}

function properties(v: unknown, name: string, fail: (m: string) => never): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) return fail(`${name} must be a mapping of property names to values`);
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) {
    if (isObject(value) || Array.isArray(value)) fail(`${name}.${k} must be a scalar`);
    out[k] = String(value);
  }
  return out;
}
