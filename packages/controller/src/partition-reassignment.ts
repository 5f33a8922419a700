import { ErrorCode } from '@gregor/common';
import type { ControllerDeps } from './controller-config.js';
import { tpKey, type TopicPartition } from './controller-context.js';
import type { AlterReassignmentsOutcome } from './controller-events.js';
import type { ControllerRequestBatch } from './controller-request-batch.js';
import type { PartitionStateData } from './controller-zk.js';
import { reassignPartitionLeaderElection } from './leader-election.js';
import {
  isBeingReassigned,
  originReplicas,
  reassignTo,
  replicaSet,
  sameList,
  sameReplicaSet,
  targetReplicas,
  type ReplicaSet,
} from './replica-set.js';

export interface ReassignmentDeps extends Pick<ControllerDeps, 'ctx' | 'zk' | 'log' | 'newBatch' | 'enqueue'> {
  /** Conditional write of a partition state (refreshes the context and returns false on a stale zkVersion). */
  writeState(tp: TopicPartition, state: PartitionStateData, expectedZkVersion: number): Promise<boolean>;
}

/** One partition of an AlterPartitionReassignments request; null replicas cancel. */
export interface ReassignmentRequest extends TopicPartition {
  replicas: number[] | null;
}

export interface PartitionError {
  errorCode: number;
  errorMessage: string | null;
}

/** One partition of a ListPartitionReassignments answer. */
export interface OngoingReassignment extends TopicPartition, ReplicaSet {}

/**
 * Partition reassignment as Kafka 2.4 does it (KIP-455; KafkaController.onPartitionReassignment),
 * started through AlterPartitionReassignments or /admin/reassign_partitions:
 *  U. the replica set becomes RS = target ++ original with its adding/removing replicas, written
 *     to the assignment znode first (the only place the original replicas survive a failover);
 *     replicas a replaced or cancelled reassignment was adding and no longer wants are stopped;
 *  A. until every target replica is in the ISR: leader epoch bumped, LeaderAndIsr to RS so the
 *     new replicas start following;
 *  B. then: leadership moves into the target if needed and the removed replicas leave the ISR (one
 *     state write), the assignment znode gets RS = target with nothing adding or removing, removed
 *     replicas get StopReplica(delete), and the partition leaves /admin/reassign_partitions.
 */
export class PartitionReassignment {
  readonly #d: ReassignmentDeps;

  constructor(deps: ReassignmentDeps) {
    this.#d = deps;
  }

  /** Reassignments in progress (for the admin API). */
  inProgress(): { topic: string; partition: number; original: number[]; target: number[] }[] {
    const { ctx } = this.#d;
    return [...ctx.reassignments.values()].map(({ topic, partition }) => {
      const s = ctx.replicaSetOf(topic, partition);
      return { topic, partition, original: originReplicas(s), target: targetReplicas(s) };
    });
  }

  /** The PartitionReassignment event: reads (and watches) /admin/reassign_partitions. Returns the partitions it started. */
  async onPartitionReassignmentZnode(): Promise<Set<string>> {
    const requests = await this.#d.zk.getPartitionReassignment(this.#d.enqueue({ type: 'PartitionReassignment' }));
    if (!requests) return new Set();
    const batch = this.#d.newBatch();
    const started = await this.onZnodeChange(requests, batch);
    batch.send();
    return started;
  }

  /** The AlterPartitionReassignments event: one result per partition named (the first time it is named). */
  async onAlterPartitionReassignments(reassignments: ReassignmentRequest[]): Promise<AlterReassignmentsOutcome> {
    const batch = this.#d.newBatch();
    const results = await this.alter(reassignments, batch);
    batch.send();
    const partitions = reassignments
      .filter((r, i, all) => all.findIndex((o) => o.topic === r.topic && o.partition === r.partition) === i)
      .map((r) => ({ topic: r.topic, partition: r.partition, ...results.get(tpKey(r.topic, r.partition))! }));
    return { errorCode: ErrorCode.NONE, partitions };
  }

  /**
   * /admin/reassign_partitions was created or changed (or found at failover): starts the partitions
   * that are new or have a new target, drops invalid ones from the znode. Returns those started.
   */
  async onZnodeChange(requests: { topic: string; partition: number; replicas: number[] }[], batch: ControllerRequestBatch): Promise<Set<string>> {
    const { ctx, log } = this.#d;
    const started = new Set<string>();
    const invalid = new Set<string>();
    for (const r of requests) {
      const key = tpKey(r.topic, r.partition);
      const current = ctx.replicaSetOf(r.topic, r.partition);
      const problem = !ctx.assignments.get(r.topic)?.has(r.partition)
        ? 'unknown partition'
        : ctx.topicsToBeDeleted.has(r.topic)
          ? 'topic is being deleted'
          : this.#invalidReplicas(current, r.replicas, false);
      if (problem) {
        log.error({ partition: key, replicas: r.replicas, problem }, 'invalid reassignment dropped');
        invalid.add(key);
        continue;
      }
      // The znode changes whenever finished partitions are taken out of it: the others keep going.
      if (isBeingReassigned(current) && sameList(targetReplicas(current), r.replicas)) continue;
      await this.#reassign(r, reassignTo(current, r.replicas), batch);
      started.add(key);
    }
    if (invalid.size > 0) await this.#removeFromZnode((p) => invalid.has(tpKey(p.topic, p.partition)));
    return started;
  }

  /** AlterPartitionReassignments (the controller is active): an error or NONE per partition. */
  async alter(requests: ReassignmentRequest[], batch: ControllerRequestBatch): Promise<Map<string, PartitionError>> {
    const { ctx } = this.#d;
    const results = new Map<string, PartitionError>();
    const toStart = new Map<string, { tp: TopicPartition; next: ReplicaSet }>();
    for (const r of requests) {
      const key = tpKey(r.topic, r.partition);
      const current = ctx.replicaSetOf(r.topic, r.partition);
      const invalid = r.replicas === null ? null : this.#invalidReplicas(current, r.replicas, true);
      // A partition named twice: the last entry counts, as in Kafka's map of the request.
      toStart.delete(key);
      if (invalid) {
        results.set(key, { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: invalid });
        continue;
      }
      // A cancel goes back to the original replicas; a new target replaces the one in progress.
      const target = r.replicas ?? (isBeingReassigned(current) ? originReplicas(current) : null);
      if (target === null) {
        results.set(key, { errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: 'No partition reassignment is in progress.' });
        continue;
      }
      results.delete(key);
      toStart.set(key, { tp: { topic: r.topic, partition: r.partition }, next: reassignTo(current, target) });
    }
    // The latest reassignment wins: the API takes its partitions out of /admin/reassign_partitions.
    if (toStart.size > 0) await this.#removeFromZnode((p) => toStart.has(tpKey(p.topic, p.partition)));
    for (const [key, { tp, next }] of toStart) {
      if (ctx.topicsToBeDeleted.has(tp.topic) || !ctx.assignments.get(tp.topic)?.has(tp.partition)) {
        results.set(key, { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' });
        continue;
      }
      await this.#reassign(tp, next, batch);
      results.set(key, { errorCode: ErrorCode.NONE, errorMessage: null });
    }
    return results;
  }

  /** ListPartitionReassignments: the named partitions (or all) that are being reassigned. */
  list(partitions: TopicPartition[] | null): OngoingReassignment[] {
    const { ctx } = this.#d;
    const tps = partitions ?? [...ctx.reassignments.values()].map(({ topic, partition }) => ({ topic, partition }));
    const seen = new Set<string>();
    const out: OngoingReassignment[] = [];
    for (const tp of tps) {
      const key = tpKey(tp.topic, tp.partition);
      if (seen.has(key) || !ctx.reassignments.has(key)) continue;
      seen.add(key);
      out.push({ topic: tp.topic, partition: tp.partition, ...ctx.replicaSetOf(tp.topic, tp.partition) });
    }
    return out;
  }

  /** Controller failover or a target broker coming back: carry on with reassignments in progress. */
  async resume(batch: ControllerRequestBatch, shouldResume: (tp: TopicPartition, s: ReplicaSet) => boolean): Promise<void> {
    const { ctx } = this.#d;
    for (const r of [...ctx.reassignments.values()]) {
      const tp = { topic: r.topic, partition: r.partition };
      if (ctx.topicsToBeDeleted.has(r.topic)) continue;
      if (shouldResume(tp, ctx.replicaSetOf(r.topic, r.partition))) await this.#progress(tp, batch);
    }
  }

  /** After ISR changes: completes every reassignment whose target replicas are all in the ISR. */
  async checkAll(batch: ControllerRequestBatch): Promise<void> {
    const { ctx } = this.#d;
    for (const r of [...ctx.reassignments.values()]) {
      // A topic being deleted keeps its replicas until they are gone; its znodes are about to go too.
      if (ctx.topicsToBeDeleted.has(r.topic)) continue;
      const isr = ctx.leadership.get(tpKey(r.topic, r.partition))?.isr ?? [];
      if (targetReplicas(ctx.replicaSetOf(r.topic, r.partition)).every((b) => isr.includes(b))) await this.#progress(r, batch);
    }
  }

  /**
   * Why a target cannot be used (Kafka's checks), or null. Only the API (`requireLiveAdding`, Kafka's
   * replicasAreValid) refuses replicas being added on brokers that are not live; a move written to
   * /admin/reassign_partitions waits for them instead (processZkPartitionReassignment has no such check), so a
   * target broker restarting at that moment does not get the move dropped.
   */
  #invalidReplicas(current: ReplicaSet, replicas: number[], requireLiveAdding: boolean): string | null {
    if (replicas.length === 0) return 'The replica list is empty.';
    if (new Set(replicas).size !== replicas.length) return `Duplicate replicas in ${JSON.stringify(replicas)}.`;
    if (replicas.some((b) => !Number.isInteger(b) || b < 0)) return `Negative replica ids in ${JSON.stringify(replicas)}.`;
    if (!requireLiveAdding) return null;
    const notLive = reassignTo(current, replicas).adding.filter((b) => !this.#d.ctx.liveBrokers.has(b));
    return notLive.length > 0 ? `Replicas ${notLive.join(',')} are not on live brokers.` : null;
  }

  /** Starts, replaces or cancels one partition's reassignment (steps U, then A or B). */
  async #reassign(tp: TopicPartition, next: ReplicaSet, batch: ControllerRequestBatch): Promise<void> {
    const { ctx, zk, log } = this.#d;
    const current = ctx.replicaSetOf(tp.topic, tp.partition);
    if (!sameReplicaSet(current, next)) {
      await zk.writeTopicAssignment(tp.topic, ctx.topicAssignmentWith(tp.topic, tp.partition, next), ctx.epochZkVersion);
      ctx.setReplicaSet(tp.topic, tp.partition, next);
      log.info({ partition: tpKey(tp.topic, tp.partition), replicas: next.replicas, adding: next.adding, removing: next.removing }, 'reassignment updated');
      const unneeded = current.replicas.filter((b) => !next.replicas.includes(b));
      if (unneeded.length > 0) await this.#stopReplicas(tp, unneeded, batch);
    }
    await this.#progress(tp, batch);
  }

  /** Phase A while a target replica is still out of the ISR (read fresh from ZooKeeper), else B. */
  async #progress(tp: TopicPartition, batch: ControllerRequestBatch): Promise<void> {
    const { ctx, zk } = this.#d;
    const s = ctx.replicaSetOf(tp.topic, tp.partition);
    if (isBeingReassigned(s)) {
      const fresh = await zk.getPartitionState(tp.topic, tp.partition);
      if (fresh) ctx.leadership.set(tpKey(tp.topic, tp.partition), { ...tp, ...fresh.state, zkVersion: fresh.zkVersion });
      const isr = fresh?.state.isr ?? [];
      if (!targetReplicas(s).every((b) => isr.includes(b))) {
        await this.#bumpLeaderEpoch(tp, batch);
        return;
      }
    }
    await this.#complete(tp, s, batch);
  }

  /** A: a new leader epoch, and LeaderAndIsr to the whole replica set so new replicas follow. */
  async #bumpLeaderEpoch(tp: TopicPartition, batch: ControllerRequestBatch): Promise<void> {
    const { ctx } = this.#d;
    for (let attempt = 0; attempt < 3; attempt++) {
      const l = ctx.leadership.get(tpKey(tp.topic, tp.partition));
      if (!l || l.leader < 0) return;
      const next: PartitionStateData = { controllerEpoch: ctx.epoch, leader: l.leader, leaderEpoch: l.leaderEpoch + 1, isr: l.isr };
      if (await this.#d.writeState(tp, next, l.zkVersion)) {
        batch.addLeaderAndIsr(ctx.replicasOf(tp.topic, tp.partition), tp);
        return;
      }
    }
  }

  /** B: every target replica is in the ISR (or nothing is moving any more: a cancel). */
  async #complete(tp: TopicPartition, s: ReplicaSet, batch: ControllerRequestBatch): Promise<void> {
    const { ctx, zk, log } = this.#d;
    const key = tpKey(tp.topic, tp.partition);
    const target = targetReplicas(s);
    const removing = s.replicas.filter((b) => !target.includes(b));
    const live = ctx.liveBrokerIds();
    let leader = -1;
    for (let attempt = 0; attempt < 3; attempt++) {
      const l = ctx.leadership.get(key);
      if (!l) break;
      const keep = target.includes(l.leader) && live.has(l.leader);
      const elected = keep ? l.leader : reassignPartitionLeaderElection(target, l.isr, live)?.leader;
      if (elected === undefined) {
        if (isBeingReassigned(s)) {
          log.warn({ partition: key, target, isr: l.isr }, 'reassignment waits: no live in-sync target replica to lead');
          return;
        }
        break;
      }
      // Leadership into the target and the removed replicas out of the ISR, in one write.
      const isr = l.isr.filter((b) => target.includes(b));
      const next: PartitionStateData = { controllerEpoch: ctx.epoch, leader: elected, leaderEpoch: l.leaderEpoch + 1, isr };
      if (await this.#d.writeState(tp, next, l.zkVersion)) {
        leader = elected;
        break;
      }
    }
    if (leader < 0 && isBeingReassigned(s)) return;
    const done = replicaSet(target);
    if (!sameReplicaSet(s, done)) {
      await zk.writeTopicAssignment(tp.topic, ctx.topicAssignmentWith(tp.topic, tp.partition, done), ctx.epochZkVersion);
    }
    ctx.setReplicaSet(tp.topic, tp.partition, done);
    if (leader >= 0) batch.addLeaderAndIsr(target, tp);
    for (const b of removing) batch.addStopReplica(b, tp, true);
    batch.addUpdateMetadata([...ctx.liveBrokers.keys()], [tp]);
    await this.#removeFromZnode((p) => p.topic === tp.topic && p.partition === tp.partition && sameList(p.replicas, target));
    log.info({ partition: key, replicas: target, leader, removed: removing }, 'reassignment completed');
  }

  /**
   * Replicas a replaced or cancelled reassignment no longer wants: out of the ISR (a leader among
   * them hands over to an in-sync replica of the new set), then StopReplica(delete).
   */
  async #stopReplicas(tp: TopicPartition, ids: number[], batch: ControllerRequestBatch): Promise<void> {
    const { ctx, log } = this.#d;
    const key = tpKey(tp.topic, tp.partition);
    const live = ctx.liveBrokerIds();
    for (let attempt = 0; attempt < 3; attempt++) {
      const l = ctx.leadership.get(key);
      if (!l || (!ids.includes(l.leader) && !l.isr.some((b) => ids.includes(b)))) break;
      const rest = l.isr.filter((b) => !ids.includes(b));
      const leader = ids.includes(l.leader) ? (ctx.replicasOf(tp.topic, tp.partition).find((b) => live.has(b) && rest.includes(b)) ?? -1) : l.leader;
      // Never an empty ISR (as elsewhere): without another in-sync replica the partition goes offline.
      const isr = rest.length > 0 ? rest : l.isr;
      if (leader < 0) log.error({ partition: key, stopping: ids, isr: l.isr }, 'reassignment change leaves no in-sync replica to lead: partition offline');
      const next: PartitionStateData = { controllerEpoch: ctx.epoch, leader, leaderEpoch: l.leaderEpoch + 1, isr };
      if (await this.#d.writeState(tp, next, l.zkVersion)) {
        batch.addLeaderAndIsr(ctx.replicasOf(tp.topic, tp.partition), tp);
        break;
      }
    }
    for (const b of ids) batch.addStopReplica(b, tp, true);
  }

  /** Takes partitions out of /admin/reassign_partitions (deleted when empty). */
  async #removeFromZnode(shouldRemove: (p: { topic: string; partition: number; replicas: number[] }) => boolean): Promise<void> {
    const pending = await this.#d.zk.getPartitionReassignment();
    if (!pending) return;
    const rest = pending.filter((p) => !shouldRemove(p));
    if (rest.length !== pending.length) await this.#d.zk.setPartitionReassignment(rest, this.#d.ctx.epochZkVersion);
  }
}
