import type { Logger } from '@gregor/common';
import { ControllerMovedError } from '@gregor/zookeeper';
import type { ControllerConfig, ControllerDeps } from './controller-config.js';
import { tpKey, type ControllerContext, type TopicPartition } from './controller-context.js';
import type { ControllerRequestBatch } from './controller-request-batch.js';
import { isBadVersion, isNodeExists, type ControllerZk, type PartitionStateData } from './controller-zk.js';
import { newPartitionLeaderElection, offlinePartitionLeaderElection, type ElectionResult } from './leader-election.js';
import { ControllerSessionLostError } from './zk-retry.js';

/** A partition whose election failed on a ZooKeeper error is tried again after this long. */
const ELECTION_RETRY_MS = 1000;
/** Partitions whose state znodes are read and written concurrently during an election (pipelined requests). */
const PARTITION_WRITES_IN_FLIGHT = 100;

/**
 * Partition state changes (Kafka's PartitionStateMachine with its ZooKeeper writes): leaders elected for new
 * and offline partitions, state znodes written fenced by the controller epoch and conditionally on their
 * zkVersion, replicas taken out of the ISR. Every decision queues LeaderAndIsr/UpdateMetadata on a batch.
 */
export class PartitionStateMachine {
  readonly #d: ControllerDeps;
  readonly #cfg: ControllerConfig;
  readonly #ctx: ControllerContext;
  readonly #zk: ControllerZk;
  readonly #log: Logger;
  #electionRetryTimer: NodeJS.Timeout | undefined;

  constructor(deps: ControllerDeps) {
    this.#d = deps;
    this.#cfg = deps.cfg;
    this.#ctx = deps.ctx;
    this.#zk = deps.zk;
    this.#log = deps.log;
  }

  /** Resignation: partitions whose election failed are not retried by a controller that no longer acts. */
  cancelElectionRetry(): void {
    clearTimeout(this.#electionRetryTimer);
    this.#electionRetryTimer = undefined;
  }

  /**
   * Elects leaders for partitions that have no state yet (new) or whose leader is not live
   * (offline), writes the state znodes, and queues LeaderAndIsr to their replicas.
   */
  async electLeadersForNewOrOfflinePartitions(tps: TopicPartition[], batch: ControllerRequestBatch): Promise<void> {
    const uncleanAllowed = this.uncleanAllowedPerTopic();
    await this.eachPartition(tps, 'leader election', async (tp) => {
      if (this.#ctx.topicsToBeDeleted.has(tp.topic)) return;
      const key = tpKey(tp.topic, tp.partition);
      const replicas = this.#ctx.replicasOf(tp.topic, tp.partition);
      const current = this.#ctx.leadership.get(key);
      const online = this.#ctx.onlineReplicaBrokers(tp);
      if (!current) {
        const r = newPartitionLeaderElection(replicas, online);
        if (!r) {
          this.#log.warn({ partition: key, replicas }, 'new partition has no live replica; it stays offline');
          return;
        }
        await this.#createState(tp, r, batch);
      } else if (!online.has(current.leader)) {
        const unclean = await uncleanAllowed(tp.topic);
        await this.electAndWrite(tp, (isr) => offlinePartitionLeaderElection(replicas, isr, online, unclean), batch);
      }
    });
  }

  /**
   * Runs `fn` for each partition, up to PARTITION_WRITES_IN_FLIGHT at a time: their ZooKeeper reads and writes
   * are pipelined on the session instead of one round trip after another (Kafka 2.4 sends a state change's
   * znode writes as one batch of async requests). One partition's ZooKeeper failure does not stop the others
   * (their decisions still reach the brokers), and the failed ones are elected again shortly. A moved
   * controller or a lost session stops everything.
   */
  async eachPartition(tps: TopicPartition[], what: string, fn: (tp: TopicPartition) => Promise<void>): Promise<void> {
    let failed = 0;
    let fatal: { err: unknown } | null = null;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < tps.length && fatal === null) {
        const tp = tps[next++]!;
        try {
          await fn(tp);
        } catch (err) {
          if (err instanceof ControllerMovedError || err instanceof ControllerSessionLostError) {
            fatal ??= { err };
            return;
          }
          failed++;
          this.#log.error({ err, partition: tpKey(tp.topic, tp.partition) }, `${what} failed for a partition; retrying in ${ELECTION_RETRY_MS} ms`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARTITION_WRITES_IN_FLIGHT, tps.length) }, worker));
    if (fatal !== null) throw (fatal as { err: unknown }).err;
    if (failed > 0 && !this.#electionRetryTimer && !this.#d.stopped()) {
      this.#electionRetryTimer = setTimeout(() => {
        this.#electionRetryTimer = undefined;
        this.#d.enqueue({ type: 'OfflinePartitionElectionRetry' })();
      }, ELECTION_RETRY_MS);
      this.#electionRetryTimer.unref();
    }
  }

  async #createState(tp: TopicPartition, r: ElectionResult, batch: ControllerRequestBatch): Promise<void> {
    const key = tpKey(tp.topic, tp.partition);
    const state: PartitionStateData = { controllerEpoch: this.#ctx.epoch, leader: r.leader, leaderEpoch: 0, isr: r.isr };
    try {
      const zkVersion = await this.#zk.createPartitionState(tp.topic, tp.partition, state, this.#ctx.epochZkVersion);
      this.#ctx.leadership.set(key, { ...tp, ...state, zkVersion });
      batch.addLeaderAndIsr(this.#ctx.replicasOf(tp.topic, tp.partition), tp, true);
      this.#log.info({ partition: key, leader: r.leader, isr: r.isr }, 'partition online');
    } catch (err) {
      if (!isNodeExists(err)) throw err;
      // Created meanwhile, possibly by our own create retried after a lost answer: brokers learn what is stored.
      const s = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (s) {
        this.#ctx.leadership.set(key, { ...tp, ...s.state, zkVersion: s.zkVersion });
        batch.addLeaderAndIsr(this.#ctx.replicasOf(tp.topic, tp.partition), tp, true);
      }
    }
  }

  /**
   * Runs an election against the freshest ISR and writes it conditionally; on a stale zkVersion
   * (a leader changed the ISR meanwhile) re-reads once and retries.
   */
  async electAndWrite(
    tp: TopicPartition,
    elect: (isr: number[]) => ElectionResult | null,
    batch: ControllerRequestBatch,
  ): Promise<boolean> {
    const key = tpKey(tp.topic, tp.partition);
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = this.#ctx.leadership.get(key);
      if (!current) return false;
      const r = elect(current.isr);
      if (!r) {
        if (this.#ctx.isReplicaOnline(current.leader, tp)) return false;
        // No eligible leader: the partition goes offline (leader -1), the ISR keeps its last member.
        if (current.leader === -1) return false;
        const offline: PartitionStateData = { controllerEpoch: this.#ctx.epoch, leader: -1, leaderEpoch: current.leaderEpoch + 1, isr: current.isr };
        if (await this.writeState(tp, offline, current.zkVersion)) {
          this.#log.warn({ partition: key, isr: current.isr }, 'no live in-sync replica: partition offline');
          batch.addUpdateMetadata([...this.#ctx.liveBrokers.keys()], [tp]);
          return false;
        }
        continue;
      }
      if (r.unclean) this.#log.error({ partition: key, leader: r.leader, oldIsr: current.isr }, 'unclean leader election: acknowledged data may be lost');
      const next: PartitionStateData = { controllerEpoch: this.#ctx.epoch, leader: r.leader, leaderEpoch: current.leaderEpoch + 1, isr: r.isr };
      if (await this.writeState(tp, next, current.zkVersion)) {
        this.#log.info({ partition: key, leader: r.leader, leaderEpoch: next.leaderEpoch, isr: r.isr }, 'new leader elected');
        batch.addLeaderAndIsr(this.#ctx.replicasOf(tp.topic, tp.partition), tp);
        return true;
      }
    }
    this.#log.error({ partition: key }, 'gave up electing a leader after repeated zkVersion conflicts');
    return false;
  }

  /** unclean.leader.election.enable: the topic's override in /config/topics/<t>, else the broker's setting. */
  /** #uncleanAllowed read once per topic for one election round (Kafka reads the topics' configs once per batch). */
  uncleanAllowedPerTopic(): (topic: string) => Promise<boolean> {
    const cache = new Map<string, Promise<boolean>>();
    return (topic) => {
      let p = cache.get(topic);
      if (!p) cache.set(topic, (p = this.#uncleanAllowed(topic)));
      return p;
    };
  }

  async #uncleanAllowed(topic: string): Promise<boolean> {
    const override = (await this.#zk.getTopicConfig(topic))['unclean.leader.election.enable'];
    return override !== undefined ? override === 'true' : this.#cfg.uncleanLeaderElectionEnable;
  }

  /** Conditional write of a state znode; on BADVERSION refreshes the context and returns false. */
  async writeState(tp: TopicPartition, state: PartitionStateData, expectedZkVersion: number): Promise<boolean> {
    const key = tpKey(tp.topic, tp.partition);
    try {
      const zkVersion = await this.#zk.updatePartitionState(tp.topic, tp.partition, state, expectedZkVersion, this.#ctx.epochZkVersion);
      this.#ctx.leadership.set(key, { ...tp, ...state, zkVersion });
      return true;
    } catch (err) {
      if (!isBadVersion(err)) throw err;
      const s = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (s) this.#ctx.leadership.set(key, { ...tp, ...s.state, zkVersion: s.zkVersion });
      // Our own write, retried after its answer was lost, finds its own result: it succeeded.
      return s !== null && sameState(s.state, state);
    }
  }

  async removeReplicasFromIsr(tp: TopicPartition, ids: Set<number>, batch: ControllerRequestBatch): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const l = this.#ctx.leadership.get(tpKey(tp.topic, tp.partition));
      if (!l) return;
      const isr = l.isr.filter((b) => !ids.has(b));
      if (isr.length === l.isr.length || isr.length === 0) return;
      const next: PartitionStateData = { controllerEpoch: this.#ctx.epoch, leader: l.leader, leaderEpoch: l.leaderEpoch + 1, isr };
      if (await this.writeState(tp, next, l.zkVersion)) {
        batch.addLeaderAndIsr(this.#ctx.replicasOf(tp.topic, tp.partition), tp);
        return;
      }
    }
  }
}

function sameState(a: PartitionStateData, b: PartitionStateData): boolean {
  return a.leader === b.leader && a.leaderEpoch === b.leaderEpoch && a.controllerEpoch === b.controllerEpoch && a.isr.length === b.isr.length && a.isr.every((id, i) => b.isr[i] === id);
}
