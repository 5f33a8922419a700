import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anomalies } from './checker.js';
import { processCluster, type JepsenCluster } from './cluster.js';
import { diskFull, kill, killLeaderThenPauseSuccessor, pause, rollingRestartDuringReassignment } from './faults.js';
import { LONG, runScenario, type FaultStep, type ScenarioRun, type ScenarioSpec } from './scenario.js';
import { ProcessCluster } from '../support/process-cluster.js';

/**
 * Jepsen-style scenarios against broker processes (faults that need no network): kill -9 and SIGSTOP of
 * the leader, a follower and the controller; a full log dir; a rolling restart during a reassignment.
 * Writers (acks=all, unique values, every attempt recorded) and readers run throughout; the checker
 * judges the recorded history against the final log (test/jepsen/checker.ts). Histories and SVG
 * timelines go to test-results/jepsen/ (JEPSEN_OUT). JEPSEN_LONG=1 runs longer versions.
 *
 * Brokers 1-3 hold the topics; broker 4 only takes part in the reassignment. Broker 3's log dir is a
 * 64 MB tmpfs (mounted here: the tests run as root, like the container tests).
 */
const SESSION_MS = 6000;
const DISK_MB = 64;
/** Acks must resume after every fault well within this (a liveness bound; the measured values are the figure). */
const LIVENESS_MS = 45_000;
/** Leaders on brokers 1 and 2; broker 3 starts as a pure follower (it leads nothing). */
const ASSIGNMENT = [
  [1, 2, 3],
  [2, 3, 1],
  [1, 3, 2],
];
/** Each of brokers 1-3 leads one partition (the full disk hits a leader). */
const SPREAD = [
  [1, 2, 3],
  [2, 3, 1],
  [3, 1, 2],
];

describe('Jepsen scenarios: broker processes under kill -9, SIGSTOP, full disk and a rolling restart', () => {
  let processes: ProcessCluster;
  let cluster: JepsenCluster;
  let diskDir = '';
  let mounted = false;
  let setupError: unknown = null;

  beforeAll(async () => {
    try {
      diskDir = mkdtempSync(join(tmpdir(), 'gregor-jepsen-disk-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_MB}m`, 'tmpfs', diskDir]);
      mounted = true;
      processes = await ProcessCluster.start({
        brokers: 4,
        zookeepers: 3,
        brokerProps: {
          'zookeeper.session.timeout.ms': String(SESSION_MS),
          'replica.lag.time.max.ms': '3000',
          'replica.fetch.wait.max.ms': '200',
          'replica.fetch.backoff.ms': '200',
          'controller.socket.timeout.ms': '5000',
          'auto.leader.rebalance.enable': 'false',
          'auto.create.topics.enable': 'false',
        },
        perBrokerProps: { 3: { 'log.dirs': diskDir } },
      });
      cluster = processCluster(processes, SESSION_MS);
    } catch (err) {
      setupError = err;
    }
  }, 180_000);

  beforeEach(() => {
    if (setupError) throw new Error(`cluster setup failed (a tmpfs mount needs root): ${(setupError as Error).message}`, { cause: setupError });
  });

  afterAll(async () => {
    await processes?.stop();
    if (mounted) execFileSync('umount', ['-l', diskDir]);
    if (diskDir) rmSync(diskDir, { recursive: true, force: true });
  }, 120_000);

  function spec(name: string, steps: FaultStep[], extra: Partial<ScenarioSpec> = {}): ScenarioSpec {
    return {
      name,
      cluster,
      topic: `jepsen-${name}`,
      assignment: ASSIGNMENT,
      minInsyncReplicas: 2,
      steps: LONG ? [...steps, ...steps, ...steps] : steps,
      warmupMs: LONG ? 10_000 : 3000,
      quietMs: LONG ? 10_000 : 3000,
      ...extra,
    };
  }

  /** Safety holds; after every fault acks came back on every partition within the liveness bound. */
  function expectSafeAndLive(run: ScenarioRun): void {
    const where = `\n${run.summary}\nhistory and timeline: ${run.dir}`;
    expect(anomalies(run.result), where).toEqual([]);
    expect(run.result.valid, where).toBe(true);
    expect(run.notRecovered, where).toEqual([]);
    expect(run.result.counts.valuesAcked, where).toBeGreaterThan(300);
    for (const f of run.result.faults) {
      expect(f.firstAckAfterHealMs, `${f.fault}: no ack after the heal on some partition${where}`).not.toBeNull();
      expect(f.worstPartitionAckGapMs, `${f.fault}: acks stopped too long${where}`).toBeLessThan(LIVENESS_MS);
    }
  }

  const hold = (ms: number) => (LONG ? ms * 2 : ms);

  it('kill -9 of the leader, a follower and the controller, each restarted after its session expired', async () => {
    // Held past the session timeout: the controller sees the broker gone and elects (a quicker restart
    // re-registers the same broker before anything moves).
    const run = await runScenario(
      spec('kill', [
        { fault: kill('leader', 0), holdMs: hold(SESSION_MS + 2000) },
        { fault: kill('follower', 1), holdMs: hold(SESSION_MS + 2000) },
        { fault: kill('controller'), holdMs: hold(SESSION_MS + 2000) },
      ]),
    );
    expectSafeAndLive(run);
    expect(run.result.elections.checked + run.result.elections.unverified).toBeGreaterThan(0);
  }, 600_000);

  it('SIGSTOP of the leader, a follower and the controller past the session timeout (kafkajs and gregor producers)', async () => {
    const run = await runScenario(
      spec(
        'pause',
        [
          { fault: pause('leader', 1), holdMs: hold(SESSION_MS + 2000) },
          { fault: pause('follower', 2), holdMs: hold(SESSION_MS + 2000) },
          { fault: pause('controller'), holdMs: hold(SESSION_MS + 2000) },
        ],
        { producer: 'mixed' },
      ),
    );
    expectSafeAndLive(run);
  }, 600_000);

  it('kill -9 of the leader, then SIGSTOP of its successor as soon as ZooKeeper names it, woken after the next leader acked (RF 4)', async () => {
    const run = await runScenario(
      spec('kill-then-pause-successor', [{ fault: killLeaderThenPauseSuccessor(0), holdMs: 0 }], {
        // Short client timeouts: the writers must find the third leader while the successor is still paused.
        timeouts: { produceTimeoutMs: 1500, requestTimeoutMs: 1500 },
        assignment: [
          [1, 2, 3, 4],
          [2, 3, 4, 1],
          [3, 4, 1, 2],
        ],
      }),
    );
    expectSafeAndLive(run);
  }, 600_000);

  let diskRun: ScenarioRun | undefined;

  it('a full log dir on broker 3 (leader of partition 2), then freed', async () => {
    diskRun = await runScenario(spec('disk-full', [{ fault: diskFull(3, diskDir), holdMs: hold(10_000) }], { assignment: SPREAD }));
    expectSafeAndLive(diskRun);
  }, 600_000);

  /*
   * KIP-112: the leader whose only log dir fills marks the dir offline, tells the controller through
   * /log_dir_event_notification (and halts, having no dir left), and the controller moves leadership to an
   * in-sync replica: acks resume within the session timeout + 2 s.
   */
  it('acks on the partition led by the broker with the full disk resume within session timeout + 2 s', () => {
    expect(diskRun, 'the scenario above ran').toBeDefined();
    if (!diskRun) return;
    const fault = diskRun.result.faults.find((f) => f.fault === 'disk-full')!;
    expect(fault.worstPartitionAckGapMs, `history: ${diskRun.dir}`).toBeLessThanOrEqual(SESSION_MS + 2000);
  });

  it('a rolling restart of every broker during a reassignment onto broker 4', async () => {
    // Every partition swaps one replica for broker 4; broker 4 restarts first, right as the move starts.
    const target = [
      [4, 2, 3],
      [2, 4, 1],
      [1, 4, 2],
    ];
    const run = await runScenario(spec('rolling-restart-reassignment', [{ fault: rollingRestartDuringReassignment(target, [4, 1, 2, 3]), holdMs: 0 }]));
    expectSafeAndLive(run);
    const assignment = (await cluster.kafkaZk.getTopicAssignment('jepsen-rolling-restart-reassignment'))!.assignment.partitions;
    expect([0, 1, 2].map((p) => assignment.get(p))).toEqual(target);
  }, 600_000);
});
