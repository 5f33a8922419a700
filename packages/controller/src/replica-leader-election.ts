import { ErrorCode, type Logger } from '@gregor/common';
import type { ControllerConfig, ControllerDeps } from './controller-config.js';
import { tpKey, type ControllerContext, type TopicPartition } from './controller-context.js';
import type { LeaderElectionOutcome } from './controller-events.js';
import type { ControllerZk } from './controller-zk.js';
import { offlinePartitionLeaderElection, preferredReplicaLeaderElection } from './leader-election.js';
import type { PartitionStateMachine } from './partition-state-machine.js';

/** Kafka's ElectionType.UNCLEAN (PREFERRED is 0). */
const UNCLEAN_ELECTION = 1;

/**
 * Leader elections asked for rather than forced by a failure (Kafka's onReplicaElection): preferred replica
 * elections (the PreferredReplicaElection event, /admin/preferred_replica_election, the auto leader
 * rebalance) and ElectLeaders (KIP-460) with PREFERRED or UNCLEAN.
 */
export class ReplicaLeaderElection {
  readonly #d: ControllerDeps;
  readonly #cfg: ControllerConfig;
  readonly #ctx: ControllerContext;
  readonly #zk: ControllerZk;
  readonly #log: Logger;
  readonly #partitions: PartitionStateMachine;
  #rebalanceTimer: NodeJS.Timeout | undefined;

  constructor(deps: ControllerDeps, partitions: PartitionStateMachine) {
    this.#d = deps;
    this.#cfg = deps.cfg;
    this.#ctx = deps.ctx;
    this.#zk = deps.zk;
    this.#log = deps.log;
    this.#partitions = partitions;
  }

  async onPreferredReplicaElection(tps: TopicPartition[]): Promise<{ elected: TopicPartition[]; failed: TopicPartition[] }> {
    const live = this.#ctx.liveBrokerIds();
    const batch = this.#d.newBatch();
    const elected: TopicPartition[] = [];
    const failed: TopicPartition[] = [];
    for (const tp of tps) {
      const l = this.#ctx.leadership.get(tpKey(tp.topic, tp.partition));
      const replicas = this.#ctx.replicasOf(tp.topic, tp.partition);
      if (!l || this.#ctx.topicsToBeDeleted.has(tp.topic)) {
        failed.push(tp);
        continue;
      }
      if (l.leader === replicas[0]) {
        elected.push(tp);
        continue;
      }
      // Leaders change ISRs on their own; the controller hears of it only after a notification delay.
      const fresh = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (fresh) this.#ctx.leadership.set(tpKey(tp.topic, tp.partition), { ...tp, ...fresh.state, zkVersion: fresh.zkVersion });
      const ok = await this.#partitions.electAndWrite(tp, (isr) => preferredReplicaLeaderElection(replicas, isr, live), batch);
      (ok ? elected : failed).push(tp);
    }
    batch.send();
    return { elected, failed };
  }

  /**
   * ElectLeaders (Kafka 2.4's processReplicaLeaderElection, admin-triggered): a partition whose leader
   * is already the preferred replica (PREFERRED) or alive (UNCLEAN) needs no election; UNCLEAN may
   * pick a live replica outside the ISR whatever unclean.leader.election.enable says.
   */
  async onElectLeaders(electionType: number, tps: TopicPartition[]): Promise<LeaderElectionOutcome[]> {
    const preferred = electionType !== UNCLEAN_ELECTION;
    const live = this.#ctx.liveBrokerIds();
    const batch = this.#d.newBatch();
    const out: LeaderElectionOutcome[] = [];
    const seen = new Set<string>();
    for (const tp of tps) {
      const key = tpKey(tp.topic, tp.partition);
      if (seen.has(key)) continue;
      seen.add(key);
      const result = (errorCode: number, errorMessage: string | null, leader?: number) => out.push({ ...tp, errorCode, errorMessage, leader });
      if (!this.#ctx.assignments.get(tp.topic)?.has(tp.partition)) {
        result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'The partition does not exist.');
        continue;
      }
      if (this.#ctx.topicsToBeDeleted.has(tp.topic)) {
        result(ErrorCode.INVALID_TOPIC_EXCEPTION, 'The topic is being deleted');
        continue;
      }
      const replicas = this.#ctx.replicasOf(tp.topic, tp.partition);
      const current = this.#ctx.leadership.get(key);
      const needed = preferred ? current?.leader !== replicas[0] : !current || current.leader < 0 || !live.has(current.leader);
      if (!needed) {
        result(ErrorCode.ELECTION_NOT_NEEDED, 'Leader election not needed for topic partition');
        continue;
      }
      // Leaders change ISRs on their own; elect from what ZooKeeper says now.
      const fresh = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (fresh) this.#ctx.leadership.set(key, { ...tp, ...fresh.state, zkVersion: fresh.zkVersion });
      const ok = await this.#partitions.electAndWrite(
        tp,
        (isr) => (preferred ? preferredReplicaLeaderElection(replicas, isr, live) : offlinePartitionLeaderElection(replicas, isr, live, true)),
        batch,
      );
      if (ok) result(ErrorCode.NONE, null, this.#ctx.leadership.get(key)!.leader);
      else if (preferred) result(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, `Failed to elect leader for partition ${key} under strategy PreferredReplicaPartitionLeaderElectionStrategy`);
      else result(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, `Failed to elect leader for partition ${key} under strategy OfflinePartitionLeaderElectionStrategy(true)`);
    }
    batch.send();
    this.#log.info({ electionType: preferred ? 'PREFERRED' : 'UNCLEAN', elected: out.filter((r) => r.errorCode === ErrorCode.NONE).length, partitions: out.length }, 'leader election requested through ElectLeaders');
    return out;
  }

  /** auto.leader.rebalance.enable: an AutoPreferredReplicaLeaderElection event every leader.imbalance.check.interval.seconds. */
  startAutoRebalance(): void {
    if (!this.#cfg.autoLeaderRebalanceEnable) return;
    this.#rebalanceTimer = setInterval(this.#d.enqueue({ type: 'AutoPreferredReplicaLeaderElection' }), this.#cfg.leaderImbalanceCheckIntervalSeconds * 1000);
    this.#rebalanceTimer.unref();
  }

  /** Resignation: no more rebalance checks. */
  stopAutoRebalance(): void {
    clearInterval(this.#rebalanceTimer);
    this.#rebalanceTimer = undefined;
  }

  async checkAndTriggerAutoLeaderRebalance(): Promise<void> {
    const byPreferred = new Map<number, TopicPartition[]>();
    for (const tp of this.#ctx.allPartitions()) {
      const preferred = this.#ctx.replicasOf(tp.topic, tp.partition)[0];
      if (preferred === undefined) continue;
      let l = byPreferred.get(preferred);
      if (!l) byPreferred.set(preferred, (l = []));
      l.push(tp);
    }
    for (const [broker, tps] of byPreferred) {
      if (!this.#ctx.liveBrokers.has(broker) || this.#ctx.shuttingDownBrokerIds.has(broker)) continue;
      const notLed = tps.filter((tp) => this.#ctx.leadership.get(tpKey(tp.topic, tp.partition))?.leader !== broker);
      const ratio = notLed.length / tps.length;
      if (ratio * 100 > this.#cfg.leaderImbalancePerBrokerPercentage) {
        this.#log.info({ broker, imbalance: ratio }, 'leader imbalance: preferred replica election');
        await this.onPreferredReplicaElection(notLed.filter((tp) => !this.#ctx.topicsToBeDeleted.has(tp.topic)));
      }
    }
  }

  async onPreferredReplicaElectionZnode(): Promise<void> {
    const partitions = await this.#zk.getPreferredReplicaElection(this.#d.enqueue({ type: 'PreferredReplicaElectionZnode' }));
    if (!partitions) return;
    const result = await this.onPreferredReplicaElection(partitions);
    this.#log.info({ elected: result.elected.length, failed: result.failed.length }, 'preferred replica election requested through ZooKeeper');
    await this.#zk.deletePreferredReplicaElection(this.#ctx.epochZkVersion);
  }
}
