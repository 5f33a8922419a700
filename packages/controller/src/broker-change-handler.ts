import { ErrorCode, type Logger } from '@gregor/common';
import type { ControllerDeps } from './controller-config.js';
import { tpKey, type ControllerBrokerInfo, type ControllerContext, type TopicPartition } from './controller-context.js';
import type { ControllerRequestBatch } from './controller-request-batch.js';
import type { ControllerZk } from './controller-zk.js';
import { controlledShutdownLeaderElection, offlinePartitionLeaderElection } from './leader-election.js';
import type { PartitionReassignment } from './partition-reassignment.js';
import type { PartitionStateMachine } from './partition-state-machine.js';
import { targetReplicas } from './replica-set.js';
import type { TopicDeletionManager } from './topic-deletion-manager.js';

/**
 * Brokers coming and going (Kafka's onBrokerStartup, onBrokerFailure, onReplicasBecomeOffline and
 * doControlledShutdown): /brokers/ids changes, a broker asking to shut down, and replicas going offline
 * with a failed log dir (KIP-112).
 */
export class BrokerChangeHandler {
  readonly #d: ControllerDeps;
  readonly #ctx: ControllerContext;
  readonly #zk: ControllerZk;
  readonly #log: Logger;
  readonly #partitions: PartitionStateMachine;
  readonly #reassignment: PartitionReassignment;
  readonly #deletion: TopicDeletionManager;

  constructor(deps: ControllerDeps, partitions: PartitionStateMachine, reassignment: PartitionReassignment, deletion: TopicDeletionManager) {
    this.#d = deps;
    this.#ctx = deps.ctx;
    this.#zk = deps.zk;
    this.#log = deps.log;
    this.#partitions = partitions;
    this.#reassignment = reassignment;
    this.#deletion = deletion;
  }

  async onBrokerChange(): Promise<void> {
    const ids = new Set(await this.#zk.getBrokerIds(this.#d.enqueue({ type: 'BrokerChange' })));
    const current = await this.readBrokers([...ids]);
    const known = this.#ctx.liveBrokers;
    const newBrokers = current.filter((b) => !known.has(b.id));
    const bounced = current.filter((b) => known.has(b.id) && known.get(b.id)!.epoch !== b.epoch);
    const dead = [...known.keys()].filter((id) => !ids.has(id));
    if (newBrokers.length === 0 && bounced.length === 0 && dead.length === 0) return;
    this.#log.info({ new: newBrokers.map((b) => b.id), dead, bounced: bounced.map((b) => b.id) }, 'broker change');

    for (const id of [...dead, ...bounced.map((b) => b.id)]) {
      known.delete(id);
      this.#ctx.shuttingDownBrokerIds.delete(id);
      // A restarted broker reloads its log dirs: what failed before is back (or reported again).
      this.#ctx.replicasOnOfflineDirs.delete(id);
      await this.#d.channel().removeBroker(id);
    }
    if (dead.length > 0 || bounced.length > 0) await this.#onBrokerFailure([...dead, ...bounced.map((b) => b.id)]);
    const started = [...newBrokers, ...bounced];
    for (const b of started) {
      known.set(b.id, b);
      this.#d.channel().addBroker(b);
    }
    if (started.length > 0) await this.#onBrokerStartup(started.map((b) => b.id));
  }

  async #onBrokerFailure(deadIds: number[]): Promise<void> {
    const batch = this.#d.newBatch();
    const dead = new Set(deadIds);
    await this.#onReplicasOffline(this.#ctx.allPartitions(), (_tp, broker) => dead.has(broker), batch);
    batch.addUpdateMetadata([...this.#ctx.liveBrokers.keys()], []);
    batch.send();
    await this.#deletion.retryPendingDeletions();
  }

  /**
   * Kafka's onReplicasBecomeOffline: a partition whose leader's replica is offline gets a new leader from the
   * online ISR; an offline follower leaves the ISR at once (the OfflineReplica transition).
   */
  async #onReplicasOffline(tps: TopicPartition[], isOffline: (tp: TopicPartition, broker: number) => boolean, batch: ControllerRequestBatch): Promise<void> {
    const uncleanAllowed = this.#partitions.uncleanAllowedPerTopic();
    await this.#partitions.eachPartition(tps, 'offline replica handling', async (tp) => {
      const l = this.#ctx.leadership.get(tpKey(tp.topic, tp.partition));
      if (!l || this.#ctx.topicsToBeDeleted.has(tp.topic)) return;
      const replicas = this.#ctx.replicasOf(tp.topic, tp.partition);
      if (l.leader >= 0 && isOffline(tp, l.leader)) {
        const online = this.#ctx.onlineReplicaBrokers(tp);
        const unclean = await uncleanAllowed(tp.topic);
        await this.#partitions.electAndWrite(tp, (isr) => offlinePartitionLeaderElection(replicas, isr, online, unclean), batch);
      } else if (l.leader >= 0 && l.isr.some((b) => isOffline(tp, b))) {
        await this.#partitions.removeReplicasFromIsr(tp, new Set(l.isr.filter((b) => isOffline(tp, b))), batch);
      }
    });
  }

  async #onBrokerStartup(ids: number[]): Promise<void> {
    const batch = this.#d.newBatch();
    const existing = [...this.#ctx.liveBrokers.keys()].filter((id) => !ids.includes(id));
    batch.addUpdateMetadata(existing, []);
    batch.addUpdateMetadata(ids, this.#ctx.allPartitions());
    batch.send();
    // Replicas on the new brokers learn their role; offline partitions may get a leader back.
    const started = new Set(ids);
    for (const tp of this.#ctx.allPartitions()) {
      const replicas = this.#ctx.replicasOf(tp.topic, tp.partition);
      if (replicas.some((r) => started.has(r)) && this.#ctx.leadership.has(tpKey(tp.topic, tp.partition))) {
        batch.addLeaderAndIsr(replicas.filter((r) => started.has(r)), tp);
      }
    }
    await this.#partitions.electLeadersForNewOrOfflinePartitions(this.#ctx.allPartitions(), batch);
    batch.send();
    // Reassignments waiting for a replica on a started broker carry on (Kafka's maybeResumeReassignments).
    const reassigning = this.#d.newBatch();
    await this.#reassignment.resume(reassigning, (_tp, s) => targetReplicas(s).some((b) => started.has(b)));
    reassigning.send();
    await this.#deletion.retryPendingDeletions();
  }

  async onControlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<{ errorCode: number; remaining: TopicPartition[] }> {
    const registered = this.#ctx.liveBrokers.get(brokerId);
    if (!registered) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, remaining: [] };
    // KIP-380: a request from an earlier life of the broker (older registration czxid) must not move its leaders.
    if (brokerEpoch !== -1n && brokerEpoch < registered.epoch) {
      this.#log.info({ broker: brokerId, brokerEpoch: String(brokerEpoch), current: String(registered.epoch) }, 'controlled shutdown with a stale broker epoch refused');
      return { errorCode: ErrorCode.STALE_BROKER_EPOCH, remaining: [] };
    }
    this.#ctx.shuttingDownBrokerIds.add(brokerId);
    const live = this.#ctx.liveBrokerIds();
    const batch = this.#d.newBatch();
    for (const tp of this.#ctx.partitionsOnBroker(brokerId)) {
      const replicas = this.#ctx.replicasOf(tp.topic, tp.partition);
      if (replicas.length <= 1) continue;
      // The ISR may have grown since the last notification: elect from what ZooKeeper says now.
      const fresh = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (fresh) this.#ctx.leadership.set(tpKey(tp.topic, tp.partition), { ...tp, ...fresh.state, zkVersion: fresh.zkVersion });
      const l = this.#ctx.leadership.get(tpKey(tp.topic, tp.partition));
      if (!l) continue;
      if (l.leader === brokerId) {
        await this.#partitions.electAndWrite(tp, (isr) => controlledShutdownLeaderElection(replicas, isr, live, this.#ctx.shuttingDownBrokerIds), batch);
      } else if (l.isr.includes(brokerId)) {
        batch.addStopReplica(brokerId, tp, false);
        await this.#partitions.removeReplicasFromIsr(tp, new Set([brokerId]), batch);
      }
    }
    batch.send();
    const remaining = this.#ctx.partitionsLedBy(brokerId).filter((tp) => this.#ctx.replicasOf(tp.topic, tp.partition).length > 1);
    this.#log.info({ broker: brokerId, remaining: remaining.length }, 'controlled shutdown');
    return { errorCode: ErrorCode.NONE, remaining };
  }

  /** The registrations of these brokers (those gone meanwhile left out). */
  async readBrokers(ids: number[]): Promise<ControllerBrokerInfo[]> {
    const out: ControllerBrokerInfo[] = [];
    for (const id of ids) {
      const b = await this.#zk.getBroker(id);
      if (b) out.push(b);
    }
    return out;
  }

  // ---- failed log dirs (KIP-112) ---------------------------------------------------------

  /**
   * Kafka's onBrokerLogDirFailure: a broker reported a failed log dir. Every replica it hosts gets LeaderAndIsr;
   * its answers name the replicas in failed dirs (KAFKA_STORAGE_ERROR), handled as they arrive.
   */
  async onLogDirEventNotification(): Promise<void> {
    const notes = await this.#zk.getLogDirEventNotifications(this.#d.enqueue({ type: 'LogDirEventNotification' }));
    if (notes.length === 0) return;
    const brokers = new Set(notes.map((n) => n.brokerId).filter((b): b is number => b !== null && this.#ctx.liveBrokers.has(b)));
    this.#log.warn({ brokers: [...brokers] }, 'log dir failure reported: asking the broker which replicas are offline');
    const batch = this.#d.newBatch();
    for (const broker of brokers) {
      for (const tp of this.#ctx.partitionsOnBroker(broker)) {
        if (this.#ctx.leadership.has(tpKey(tp.topic, tp.partition)) && !this.#ctx.topicsToBeDeleted.has(tp.topic)) batch.addLeaderAndIsr([broker], tp);
      }
    }
    batch.send();
    await this.#zk.deleteLogDirEventNotifications(notes.map((n) => n.name), this.#ctx.epochZkVersion);
  }

  /** Kafka's LeaderAndIsrResponseReceived: KAFKA_STORAGE_ERROR marks a replica offline, NONE online again. */
  async onLeaderAndIsrResponse(brokerId: number, partitionErrors: (TopicPartition & { errorCode: number })[]): Promise<void> {
    if (!this.#ctx.liveBrokers.has(brokerId)) return;
    const previous = this.#ctx.replicasOnOfflineDirs.get(brokerId) ?? new Set<string>();
    const current = new Set(previous);
    const newlyOffline: TopicPartition[] = [];
    for (const e of partitionErrors) {
      const key = tpKey(e.topic, e.partition);
      if (e.errorCode === ErrorCode.KAFKA_STORAGE_ERROR) {
        current.add(key);
        if (!previous.has(key) && this.#ctx.assignments.get(e.topic)?.has(e.partition)) newlyOffline.push({ topic: e.topic, partition: e.partition });
      } else if (e.errorCode === ErrorCode.NONE) current.delete(key);
    }
    if (current.size > 0) this.#ctx.replicasOnOfflineDirs.set(brokerId, current);
    else this.#ctx.replicasOnOfflineDirs.delete(brokerId);
    if (newlyOffline.length === 0) return;
    this.#log.warn({ broker: brokerId, partitions: newlyOffline.map((tp) => tpKey(tp.topic, tp.partition)) }, 'replicas in a failed log dir are offline');
    const batch = this.#d.newBatch();
    const offline = new Set(newlyOffline.map((tp) => tpKey(tp.topic, tp.partition)));
    await this.#onReplicasOffline(newlyOffline, (tp, broker) => broker === brokerId && offline.has(tpKey(tp.topic, tp.partition)), batch);
    batch.addUpdateMetadata([...this.#ctx.liveBrokers.keys()], newlyOffline);
    batch.send();
  }
}
