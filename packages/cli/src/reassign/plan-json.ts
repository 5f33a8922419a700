import { UsageError } from '../usage-error.js';

/** Kafka's reassignment plan JSON (kafka-reassign-partitions): version 1, one entry per partition. */
export interface PlanEntry {
  topic: string;
  partition: number;
  replicas: number[];
}

/** What kafka-reassign-partitions prints and reads: log_dirs "any" for every replica (gregor has one log dir per replica). */
export const ANY_LOG_DIR = 'any';

function fail(what: string, message: string): never {
  throw new UsageError(`${what}: ${message}`);
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function versionOf(json: Record<string, unknown>, what: string): void {
  const version = json['version'] ?? 1;
  if (version !== 1) fail(what, `Not supported version field value ${JSON.stringify(version)}`);
}

function asObject(json: unknown, what: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail(what, 'expected a JSON object');
  return json as Record<string, unknown>;
}

/** The top-level object of a plan file, with a supported "version". */
function planRoot(text: string, what: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    fail(what, `not valid JSON (${(error as Error).message})`);
  }
  const root = asObject(json, what);
  versionOf(root, what);
  return root;
}

/**
 * `{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}]}`.
 * log_dirs is optional; given, it must have one entry per replica, and gregor only places replicas
 * "any"where (moving a replica between a broker's log dirs, AlterReplicaLogDirs, is not supported).
 * Duplicate partitions or replicas are refused, as Kafka does.
 */
export function parseReassignmentPlan(text: string, what = 'reassignment JSON'): PlanEntry[] {
  const root = planRoot(text, what);
  const partitions = root['partitions'];
  if (!Array.isArray(partitions)) fail(what, 'missing "partitions" array');
  const seen = new Set<string>();
  return partitions.map((p: unknown, i) => {
    const e = asObject(p, `${what} partitions[${i}]`);
    const { topic, partition, replicas } = e;
    if (typeof topic !== 'string' || topic === '') fail(what, `partitions[${i}] has no "topic"`);
    if (!isInt(partition) || partition < 0) fail(what, `partitions[${i}] has no valid "partition"`);
    if (!Array.isArray(replicas) || replicas.length === 0 || !replicas.every((r) => isInt(r) && r >= 0)) fail(what, `${topic}-${partition}: "replicas" must be a non-empty list of broker ids`);
    if (new Set(replicas).size !== replicas.length) fail(what, `Partition replica lists may not contain duplicate entries: ${topic}-${partition} contains multiple entries for ${replicas.join(',')}`);
    const logDirs = e['log_dirs'];
    if (logDirs !== undefined) {
      if (!Array.isArray(logDirs) || logDirs.length !== replicas.length) fail(what, `Size of replicas list ${JSON.stringify(replicas)} is different from size of log dirs list ${JSON.stringify(logDirs)} for partition ${topic}-${partition}`);
      if (logDirs.some((d) => d !== ANY_LOG_DIR)) fail(what, `${topic}-${partition}: log_dirs other than "any" would move replicas between log dirs (AlterReplicaLogDirs), which gregor does not do`);
    }
    const key = `${topic}-${partition}`;
    if (seen.has(key)) fail(what, `Partition reassignment contains duplicate topic partitions: ${key}`);
    seen.add(key);
    return { topic, partition, replicas: replicas as number[] };
  });
}

/** `{"topics":[{"topic":"foo"}],"version":1}` for --generate. */
export function parseTopicsToMove(text: string, what = 'topics-to-move JSON'): string[] {
  const root = planRoot(text, what);
  const topics = root['topics'];
  if (!Array.isArray(topics)) fail(what, 'missing "topics" array');
  const names = topics.map((t: unknown, i) => {
    const name = asObject(t, `${what} topics[${i}]`)['topic'];
    if (typeof name !== 'string' || name === '') fail(what, `topics[${i}] has no "topic"`);
    return name;
  });
  const dup = names.filter((n, i) => names.indexOf(n) !== i);
  if (dup.length > 0) fail(what, `List of topics to reassign contains duplicate entries: ${[...new Set(dup)].join(',')}`);
  return names;
}

/** --broker-list "1,2,3". */
export function parseBrokerList(text: string): number[] {
  const ids = text.split(',').map((s) => s.trim());
  if (ids.some((s) => !/^\d+$/.test(s))) throw new UsageError(`--broker-list must be broker ids separated by commas, got "${text}"`);
  const n = ids.map(Number);
  const dup = n.filter((x, i) => n.indexOf(x) !== i);
  if (dup.length > 0) throw new UsageError(`Broker list contains duplicate entries: ${[...new Set(dup)].join(',')}`);
  return n;
}

/** Kafka's formatAsReassignmentJson: partitions sorted by topic then partition, log_dirs "any". */
export function formatPlan(entries: readonly PlanEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  return JSON.stringify({ version: 1, partitions: sorted.map((e) => ({ topic: e.topic, partition: e.partition, replicas: e.replicas, log_dirs: e.replicas.map(() => ANY_LOG_DIR) })) });
}
