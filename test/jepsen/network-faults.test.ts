import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ComposeCluster } from '../chaos/compose-cluster.js';
import { anomalies } from './checker.js';
import { composeCluster, type JepsenCluster } from './cluster.js';
import { isolateController, partitionFromZooKeeper, partitionLeaderFromBrokers } from './faults.js';
import { LONG, runScenario, type FaultStep, type ScenarioRun, type ScenarioSpec } from './scenario.js';

/**
 * Jepsen-style scenarios with network partitions, against the compose.yaml cluster in containers
 * (3 ZooKeeper, 3 brokers; test/chaos/compose.chaos.yaml: session timeout 6 s, replica lag 3 s):
 * the leader cut from its followers, a follower and a leader cut from ZooKeeper (the leader's session
 * expires while it still reaches its followers), the controller isolated. Partitions are iptables DROP
 * rules inside a container's network namespace (test/jepsen/network.ts). Needs the engine and images of
 * scripts/docker-setup.sh; without them these tests FAIL (never skip).
 */
const SESSION_MS = 6000;
const LIVENESS_MS = 60_000;
const ASSIGNMENT = [
  [1, 2, 3],
  [2, 3, 1],
  [3, 1, 2],
];

describe('Jepsen scenarios: network partitions in the compose cluster', () => {
  let compose: ComposeCluster;
  let cluster: JepsenCluster;
  let setupError: unknown = null;

  beforeAll(async () => {
    try {
      compose = await ComposeCluster.start(`gregorjepsen${process.pid}`, 'jepsen-unused');
      cluster = composeCluster(compose, SESSION_MS);
    } catch (err) {
      setupError = err;
    }
  }, 900_000); // includes waiting for another compose cluster of this machine to go (compose-lock.ts)

  beforeEach(() => {
    if (setupError) throw setupError;
  });

  afterAll(async () => {
    await cluster?.network?.healAll();
    await compose?.down();
  }, 180_000);

  function spec(name: string, steps: FaultStep[]): ScenarioSpec {
    return {
      name,
      cluster,
      topic: `jepsen-${name}`,
      assignment: ASSIGNMENT,
      minInsyncReplicas: 2,
      steps: LONG ? [...steps, ...steps, ...steps] : steps,
      warmupMs: LONG ? 10_000 : 3000,
      quietMs: LONG ? 10_000 : 3000,
      recoveryTimeoutMs: 90_000,
    };
  }

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

  const hold = LONG ? 20_000 : SESSION_MS + 4000;

  it('the leader of partition 0 cut from both followers (it keeps ZooKeeper), then healed', async () => {
    expectSafeAndLive(await runScenario(spec('partition-leader', [{ fault: partitionLeaderFromBrokers(0), holdMs: hold }])));
  }, 600_000);

  let zookeeperRun: ScenarioRun | undefined;

  it('a follower cut from ZooKeeper; then the leader of partition 2 cut from ZooKeeper until its session expires', async () => {
    zookeeperRun = await runScenario(
      spec('zookeeper-partitions', [
        { fault: partitionFromZooKeeper('follower', 1), holdMs: hold },
        { fault: partitionFromZooKeeper('leader', 2), holdMs: hold },
      ]),
    );
    expectSafeAndLive(zookeeperRun);
  }, 600_000);

  let isolateRun: ScenarioRun | undefined;

  it('the controller isolated from every broker and ZooKeeper node, then healed', async () => {
    isolateRun = await runScenario(spec('isolate-controller', [{ fault: isolateController(), holdMs: hold }]));
    expectSafeAndLive(isolateRun);
  }, 600_000);

  /*
   * KNOWN BROKER RACE (issue 11, "Follower fetch accounting"; the fix is in the broker's ISR expansion, another
   * change): a broker whose ZooKeeper session expired but that reaches the brokers is taken back into ISRs by
   * their leaders before it has registered again (e.g. state znode isr [3,1] -> [3,1,2] while /brokers/ids is [1,3],
   * ordered by ZooKeeper's zxids: state mzxid before the registration's czxid). Kafka in ZooKeeper mode lets
   * only brokers alive in the leader's metadata cache join an ISR (Partition.isReplicaIsrEligible:
   * zkMetadataCache.hasAliveBroker). When that broker then stops fetching, acks=all writes wait for it until
   * the ISR shrinks again (3-4 s). The isolated controller's heal shows it in every run so far (10 of 10:
   * its fetchers resume at once, its registration needs a new session first); the follower cut from
   * ZooKeeper showed it during the cut in 6 of 9. Fixed: the leader admits only followers alive in its
   * metadata cache (Partition's isBrokerAlive).
   */
  it('no ISR takes in a broker that is not registered in ZooKeeper (follower cut from ZooKeeper, isolated controller)', () => {
    expect(zookeeperRun && isolateRun, 'the scenarios above ran').toBeTruthy();
    if (!zookeeperRun || !isolateRun) return;
    const joins = [...zookeeperRun.result.isrWithUnregisteredBroker, ...isolateRun.result.isrWithUnregisteredBroker];
    expect(joins, `histories: ${zookeeperRun.dir} ${isolateRun.dir}`).toEqual([]);
  });
});
