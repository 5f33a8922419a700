import { ErrorCode, type Logger } from '@gregor/common';
import type { ControllerConfig, ControllerDeps } from './controller-config.js';
import type { ControllerContext } from './controller-context.js';
import type { ControllerZk } from './controller-zk.js';

/**
 * Topic deletion (Kafka's TopicDeletionManager): a topic marked under /admin/delete_topics gets
 * StopReplica(delete) on every replica; once each replica confirmed, its znodes are deleted. Replicas on
 * brokers that are down are retried when those brokers come back.
 */
export class TopicDeletionManager {
  readonly #d: ControllerDeps;
  readonly #cfg: ControllerConfig;
  readonly #ctx: ControllerContext;
  readonly #zk: ControllerZk;
  readonly #log: Logger;

  constructor(deps: ControllerDeps) {
    this.#d = deps;
    this.#cfg = deps.cfg;
    this.#ctx = deps.ctx;
    this.#zk = deps.zk;
    this.#log = deps.log;
  }

  async onTopicDeletion(): Promise<void> {
    const marked = await this.#zk.getTopicsMarkedForDeletion(this.#d.enqueue({ type: 'TopicDeletion' }));
    for (const topic of marked) {
      if (this.#ctx.topicsToBeDeleted.has(topic)) continue;
      if (!this.#ctx.assignments.has(topic) || !this.#cfg.deleteTopicEnable) {
        if (!this.#cfg.deleteTopicEnable) this.#log.warn({ topic }, 'delete.topic.enable is false: ignoring deletion request');
        await this.#zk.removeTopicDeletionMarker(topic, this.#ctx.epochZkVersion);
        continue;
      }
      this.#ctx.topicsToBeDeleted.add(topic);
      const pending = new Set<string>();
      for (const tp of this.#ctx.partitionsOfTopic(topic)) {
        for (const r of this.#ctx.replicasOf(topic, tp.partition)) pending.add(`${r}:${tp.partition}`);
      }
      this.#ctx.deletionPendingReplicas.set(topic, pending);
      this.#log.info({ topic }, 'deleting topic');
      const batch = this.#d.newBatch();
      batch.addUpdateMetadata([...this.#ctx.liveBrokers.keys()], this.#ctx.partitionsOfTopic(topic));
      for (const tp of this.#ctx.partitionsOfTopic(topic)) {
        for (const r of this.#ctx.replicasOf(topic, tp.partition)) batch.addStopReplica(r, tp, true);
      }
      batch.send();
      if (pending.size === 0) await this.#completeDeletion(topic);
    }
  }

  async onStopReplicaDeleteResult(topic: string, partition: number, brokerId: number, errorCode: number): Promise<void> {
    const pending = this.#ctx.deletionPendingReplicas.get(topic);
    if (!pending) return;
    if (errorCode !== ErrorCode.NONE) {
      this.#log.warn({ topic, partition, broker: brokerId, errorCode }, 'replica deletion failed; will retry when the broker restarts');
      return;
    }
    pending.delete(`${brokerId}:${partition}`);
    if (pending.size === 0) await this.#completeDeletion(topic);
  }

  /** Replicas on brokers that were down get their StopReplica when they come back. */
  async retryPendingDeletions(): Promise<void> {
    const batch = this.#d.newBatch();
    for (const [topic, pending] of this.#ctx.deletionPendingReplicas) {
      for (const entry of pending) {
        const [broker, partition] = entry.split(':').map(Number) as [number, number];
        if (this.#ctx.liveBrokers.has(broker)) batch.addStopReplica(broker, { topic, partition }, true);
      }
    }
    batch.send();
  }

  async #completeDeletion(topic: string): Promise<void> {
    await this.#zk.deleteTopicZnodes(topic, this.#ctx.epochZkVersion);
    this.#ctx.removeTopic(topic);
    this.#log.info({ topic }, 'topic deleted');
  }
}
