import type { Logger } from '@gregor/common';
import { tpKey, type ControllerContext, type TopicPartition } from './controller-context.js';
import type { ControllerRequestBatch } from './controller-request-batch.js';
import type { ControllerZk, PartitionStateData } from './controller-zk.js';
import { reassignPartitionLeaderElection } from './leader-election.js';

export interface ReassignmentDeps {
  ctx: ControllerContext;
  zk: ControllerZk;
  log: Logger;
  /** Conditional write of a partition state (refreshes the context and returns false on a stale zkVersion). */
  writeState(tp: TopicPartition, state: PartitionStateData, expectedZkVersion: number): Promise<boolean>;
}

/**
 * Partition reassignment through /admin/reassign_partitions (Kafka 2.4's phases, simplified to
 * whole replica sets): first the replica set becomes original ∪ target and the new replicas start
 * following (leader epoch bumped); once every target replica is in the ISR, leadership moves into
 * the target set if needed, the replica set becomes the target, and removed replicas get
 * StopReplica(delete=true).
 */
export class PartitionReassignment {
  readonly #d: ReassignmentDeps;

  constructor(deps: ReassignmentDeps) {
    this.#d = deps;
  }

  /** Starts the reassignments named in the znode that are new or changed. */
  async onZnodeChange(requests: { topic: string; partition: number; replicas: number[] }[], batch: ControllerRequestBatch): Promise<void> {
    const { ctx, log } = this.#d;
    const invalid: string[] = [];
    for (const r of requests) {
      const key = tpKey(r.topic, r.partition);
      const current = ctx.assignments.get(r.topic)?.get(r.partition);
      const problem = !current
        ? 'unknown partition'
        : r.replicas.length === 0 || new Set(r.replicas).size !== r.replicas.length
          ? 'empty or duplicate replicas'
          : r.replicas.find((b) => !ctx.liveBrokers.has(b)) !== undefined
            ? `broker ${r.replicas.find((b) => !ctx.liveBrokers.has(b))} is not live`
            : ctx.topicsToBeDeleted.has(r.topic)
              ? 'topic is being deleted'
              : null;
      if (problem) {
        log.error({ partition: key, replicas: r.replicas, problem }, 'invalid reassignment dropped');
        invalid.push(key);
        continue;
      }
      const ongoing = ctx.reassignments.get(key);
      if (ongoing && sameList(ongoing.target, r.replicas)) continue;
      const original = ongoing?.original ?? current!;
      ctx.reassignments.set(key, { topic: r.topic, partition: r.partition, original, target: [...r.replicas] });
      log.info({ partition: key, from: original, to: r.replicas }, 'reassignment started');
      await this.#phaseA(ctx.reassignments.get(key)!, batch);
    }
    if (invalid.length > 0) await this.#rewriteZnode(invalid);
  }

  /** Replica set = target ∪ original; new replicas learn to follow (leader epoch bumped). */
  async #phaseA(r: TopicPartition & { original: number[]; target: number[] }, batch: ControllerRequestBatch): Promise<void> {
    const { ctx, zk } = this.#d;
    const union = [...new Set([...r.target, ...r.original])];
    const assignment = new Map(ctx.assignments.get(r.topic)!);
    assignment.set(r.partition, union);
    await zk.writeTopicAssignment(r.topic, assignment, ctx.epochZkVersion);
    ctx.assignments.get(r.topic)!.set(r.partition, union);
    const l = ctx.leadership.get(tpKey(r.topic, r.partition));
    if (l && l.leader >= 0) {
      const next: PartitionStateData = { controllerEpoch: ctx.epoch, leader: l.leader, leaderEpoch: l.leaderEpoch + 1, isr: l.isr };
      if (await this.#d.writeState(r, next, l.zkVersion)) batch.addLeaderAndIsr(union, r);
    }
    await this.maybeComplete(r, batch);
  }

  /** Completes every reassignment whose target replicas are all in the ISR. */
  async checkAll(batch: ControllerRequestBatch): Promise<void> {
    for (const r of [...this.#d.ctx.reassignments.values()]) await this.maybeComplete(r, batch);
  }

  async maybeComplete(r: TopicPartition & { original: number[]; target: number[] }, batch: ControllerRequestBatch): Promise<void> {
    const { ctx, zk, log } = this.#d;
    const key = tpKey(r.topic, r.partition);
    const l = ctx.leadership.get(key);
    if (!l || !r.target.every((b) => l.isr.includes(b))) return;
    const live = ctx.liveBrokerIds();
    const keepLeader = r.target.includes(l.leader) && live.has(l.leader);
    const elected = keepLeader ? { leader: l.leader } : reassignPartitionLeaderElection(r.target, l.isr, live);
    if (!elected) return;
    const isr = l.isr.filter((b) => r.target.includes(b));
    const next: PartitionStateData = { controllerEpoch: ctx.epoch, leader: elected.leader, leaderEpoch: l.leaderEpoch + 1, isr };
    if (!(await this.#d.writeState(r, next, l.zkVersion))) return;
    const removed = (ctx.assignments.get(r.topic)?.get(r.partition) ?? []).filter((b) => !r.target.includes(b));
    const assignment = new Map(ctx.assignments.get(r.topic)!);
    assignment.set(r.partition, [...r.target]);
    await zk.writeTopicAssignment(r.topic, assignment, ctx.epochZkVersion);
    ctx.assignments.get(r.topic)!.set(r.partition, [...r.target]);
    batch.addLeaderAndIsr(r.target, r);
    for (const b of removed) batch.addStopReplica(b, r, true);
    batch.addUpdateMetadata([...ctx.liveBrokers.keys()], [r]);
    ctx.reassignments.delete(key);
    await this.#rewriteZnode([key]);
    log.info({ partition: key, replicas: r.target, leader: elected.leader, removed }, 'reassignment completed');
  }

  /** Removes finished (or invalid) partitions from /admin/reassign_partitions. */
  async #rewriteZnode(done: string[]): Promise<void> {
    const pending = (await this.#d.zk.getPartitionReassignment()) ?? [];
    await this.#d.zk.setPartitionReassignment(pending.filter((p) => !done.includes(tpKey(p.topic, p.partition))));
  }
}

function sameList(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
