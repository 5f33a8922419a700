// One Jepsen scenario: a topic, writers and readers running throughout, a sequence of bounded faults
// (each healed and followed by recovery), then the final log read again by a fresh client, the checker,
// and the history, final log, result and SVG timeline saved as files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@gregor/common';
import { Admin, KafkaClient, LATEST_TIMESTAMP, listOffsets } from '@gregor/client';
import { check, summarize, type CheckResult, type FinalLog } from './checker.js';
import type { JepsenCluster } from './cluster.js';
import { gregorDriver, kafkajsDriver, type DriverTimeouts, type ProduceDriver } from './drivers.js';
import type { Fault } from './faults.js';
import { readFinalLog } from './final-log.js';
import { History } from './history.js';
import { Readers } from './readers.js';
import { StateWatcher } from './state-watcher.js';
import { renderTimeline } from './timeline-svg.js';
import { sleep, Writers } from './writers.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** JEPSEN_LONG=1 runs every scenario longer (more load between faults, faults held longer, repeated). */
export const LONG = process.env.JEPSEN_LONG === '1';

export interface FaultStep {
  fault: Fault;
  /** How long the fault lasts before it is healed. */
  holdMs: number;
}

export interface ScenarioSpec {
  name: string;
  cluster: JepsenCluster;
  topic: string;
  /** Replicas of each partition (index = partition); the first is the preferred leader. */
  assignment: number[][];
  minInsyncReplicas: number;
  steps: FaultStep[];
  /** Load before the first fault. */
  warmupMs: number;
  /** Load after each fault is healed and the cluster recovered. */
  quietMs: number;
  /** Which client writes: gregor's Producer, kafkajs, or half of the workers each. */
  producer?: 'gregor' | 'kafkajs' | 'mixed';
  workersPerPartition?: number;
  ratePerWorker?: number;
  timeouts?: DriverTimeouts;
  /** Time allowed for the cluster to recover (every broker registered, every ISR full) after a heal. */
  recoveryTimeoutMs?: number;
}

export interface ScenarioRun {
  name: string;
  result: CheckResult;
  /** Where the history and timeline were saved. */
  dir: string;
  summary: string;
  /** Faults after which the cluster did not recover within recoveryTimeoutMs (a liveness finding). */
  notRecovered: string[];
}

export function outputRoot(): string {
  return process.env.JEPSEN_OUT ?? join(REPO, 'test-results', 'jepsen');
}

/** Every broker registered, every partition led with its whole replica set (as assigned now) in the ISR. */
async function recovered(cluster: JepsenCluster, topic: string, partitions: number[]): Promise<boolean> {
  const zk = cluster.kafkaZk;
  const ids = new Set(await zk.getBrokerIds());
  if (!cluster.brokerIds.every((b) => ids.has(b))) return false;
  const assignment = (await zk.getTopicAssignment(topic))?.assignment.partitions;
  if (!assignment) return false;
  for (const p of partitions) {
    const s = (await zk.getPartitionState(topic, p))?.state;
    const replicas = assignment.get(p) ?? [];
    if (!s || s.leader < 0 || s.isr.length !== replicas.length || !replicas.every((r) => s.isr.includes(r))) return false;
  }
  return true;
}

async function waitRecovered(cluster: JepsenCluster, topic: string, partitions: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await recovered(cluster, topic, partitions).catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
}

export async function runScenario(spec: ScenarioSpec): Promise<ScenarioRun> {
  const { cluster, topic } = spec;
  const partitions = spec.assignment.map((_, p) => p);
  const timeouts = spec.timeouts ?? { produceTimeoutMs: 3000, requestTimeoutMs: 3000 };
  const recoveryTimeoutMs = spec.recoveryTimeoutMs ?? 60_000;
  const history = new History();
  const notRecovered: string[] = [];

  const admin = new KafkaClient({ brokers: cluster.bootstrap(), clientId: 'jepsen-admin', requestTimeoutMs: 15_000, logger: silentLogger() });
  try {
    const [created] = await new Admin(admin).createTopics([
      { name: topic, numPartitions: -1, replicationFactor: -1, replicaAssignment: Object.fromEntries(spec.assignment.map((r, p) => [p, r])), configs: { 'min.insync.replicas': String(spec.minInsyncReplicas) } },
    ]);
    if (created!.errorCode !== 0) throw new Error(`creating ${topic} failed with error ${created!.errorCode}: ${created!.errorMessage ?? ''}`);
  } finally {
    await admin.close();
  }
  if (!(await waitRecovered(cluster, topic, partitions, 60_000))) throw new Error(`${topic}: not every replica in the ISR after creation`);

  const watcher = new StateWatcher(cluster.kafkaZk, history, topic);
  const readers = new Readers(history, cluster.bootstrap(), topic);
  const pick = spec.producer ?? 'gregor';
  const makeDriver = (p: number, w: number): ProduceDriver => {
    const kind = pick === 'mixed' ? (w % 2 === 0 ? 'gregor' : 'kafkajs') : pick;
    const id = `jepsen-${topic}-w${p}.${w}`;
    return kind === 'kafkajs' ? kafkajsDriver(cluster.bootstrap(), topic, id, timeouts) : gregorDriver(cluster.bootstrap(), topic, id, timeouts);
  };
  const writers = new Writers(history, {
    partitions,
    workersPerPartition: spec.workersPerPartition ?? 2,
    ratePerWorker: spec.ratePerWorker ?? 25,
    maxAttempts: 5,
    retryBackoffMs: 100,
    driver: makeDriver,
  });
  watcher.start(partitions);
  readers.start(partitions);
  writers.start();
  let final: FinalLog | null = null;
  let failure: unknown = null;
  const pendingHeals: (() => Promise<void>)[] = [];
  try {
    history.note(`load started (${spec.producer ?? 'gregor'} producer)`);
    await sleep(spec.warmupMs);
    for (const [i, step] of spec.steps.entries()) {
      const id = i + 1;
      const prepared = await step.fault.prepare({ cluster, history, topic, partitions });
      history.record({ f: 'fault-start', type: 'info', process: 'nemesis', id, fault: step.fault.name, detail: prepared.detail });
      pendingHeals.push(prepared.heal);
      const applying = Date.now();
      await prepared.apply();
      history.note(`fault ${id} applied in ${Date.now() - applying} ms`);
      await sleep(step.holdMs);
      pendingHeals.pop();
      const healing = Date.now();
      await prepared.heal();
      // The fault ends when the heal is done (a killed broker serves again, the rules are gone).
      history.record({ f: 'fault-end', type: 'info', process: 'nemesis', id, fault: step.fault.name, detail: `${prepared.detail}; healed in ${Date.now() - healing} ms` });
      if (!(await waitRecovered(cluster, topic, partitions, recoveryTimeoutMs))) {
        notRecovered.push(`${id}. ${step.fault.name}`);
        history.note(`cluster not recovered ${recoveryTimeoutMs} ms after healing fault ${id}`);
      } else history.note(`recovered after fault ${id}`);
      await sleep(spec.quietMs);
    }
  } catch (err) {
    failure = err;
    history.note(`scenario failed: ${(err as Error).message}`);
  } finally {
    for (const heal of pendingHeals.reverse()) await heal().catch(() => undefined);
    await cluster.network?.healAll();
    await writers.stop();
    history.note('load stopped');
  }
  try {
    if (!(await waitRecovered(cluster, topic, partitions, recoveryTimeoutMs))) history.note('cluster not recovered before the final read');
    // Readers finish what was committed before they stop: the final high watermark of every partition.
    const client = new KafkaClient({ brokers: cluster.bootstrap(), clientId: 'jepsen-end', requestTimeoutMs: 10_000, logger: silentLogger() });
    try {
      const ends = await listOffsets(client, topic, partitions.map((partition) => ({ partition, timestamp: LATEST_TIMESTAMP })));
      const caught = await readers.caughtUp(new Map([...ends].map(([p, o]) => [p, o.offset])), 30_000);
      if (!caught) history.note('readers did not reach the final high watermark within 30 s');
    } finally {
      await client.close();
    }
    await readers.stop();
    final = await readFinalLog(cluster.bootstrap(), topic, partitions);
  } catch (err) {
    failure ??= err;
  } finally {
    await readers.stop();
    await watcher.stop();
  }
  const result = check(history.events, final ?? { topic, partitions: [] });
  const summary = summarize(result);
  const dir = join(outputRoot(), `${spec.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'history.json'), JSON.stringify({ scenario: spec.name, topic, startedAt: history.startedAt, cluster: cluster.kind, timeouts, events: history.events }));
  writeFileSync(join(dir, 'final-log.json'), JSON.stringify(final));
  writeFileSync(join(dir, 'result.json'), JSON.stringify(result, null, 1));
  writeFileSync(join(dir, 'timeline.svg'), renderTimeline(`${spec.name} (${cluster.kind})`, history.events, result, partitions));
  writeFileSync(join(dir, 'summary.txt'), `${summary}\n${notRecovered.length > 0 ? `not recovered after: ${notRecovered.join(', ')}\n` : ''}`);
  if (!result.valid || failure || notRecovered.length > 0) {
    for (const [name, text] of await cluster.brokerLogs().catch(() => new Map<string, string>())) writeFileSync(join(dir, name), text);
  }
  console.log(`jepsen ${spec.name}: history and timeline in ${dir}\n${summary}`);
  if (failure) throw new Error(`scenario ${spec.name} did not complete (history in ${dir}): ${(failure as Error).message}`, { cause: failure });
  return { name: spec.name, result, dir, summary, notRecovered };
}
