import type { Logger } from '@gregor/common';
import type { ControllerDeps } from './controller-config.js';
import { tpKey, type ControllerContext, type TopicPartition } from './controller-context.js';
import type { ControllerZk } from './controller-zk.js';
import type { PartitionReassignment } from './partition-reassignment.js';
import type { PartitionStateMachine } from './partition-state-machine.js';

/**
 * What ZooKeeper says about topics, as it changes (Kafka's processTopicChange, processPartitionModifications,
 * processIsrChangeNotification): new and vanished topics, new partitions of a topic, and ISRs that leaders
 * changed on their own. Also loads a topic's assignment and partition states (failover, new topics).
 */
export class TopicChangeHandler {
  readonly #d: ControllerDeps;
  readonly #ctx: ControllerContext;
  readonly #zk: ControllerZk;
  readonly #log: Logger;
  readonly #partitions: PartitionStateMachine;
  readonly #reassignment: PartitionReassignment;

  constructor(deps: ControllerDeps, partitions: PartitionStateMachine, reassignment: PartitionReassignment) {
    this.#d = deps;
    this.#ctx = deps.ctx;
    this.#zk = deps.zk;
    this.#log = deps.log;
    this.#partitions = partitions;
    this.#reassignment = reassignment;
  }

  async onTopicChange(): Promise<void> {
    const topics = new Set(await this.#zk.getTopics(this.#d.enqueue({ type: 'TopicChange' })));
    const added = [...topics].filter((t) => !this.#ctx.assignments.has(t));
    const removed = [...this.#ctx.assignments.keys()].filter((t) => !topics.has(t));
    for (const t of removed) this.#ctx.removeTopic(t);
    if (added.length === 0) return;
    const batch = this.#d.newBatch();
    const tps: TopicPartition[] = [];
    for (const t of added) {
      await this.loadTopic(t);
      tps.push(...this.#ctx.partitionsOfTopic(t));
    }
    this.#log.info({ topics: added }, 'new topics');
    await this.#partitions.electLeadersForNewOrOfflinePartitions(tps, batch);
    batch.send();
  }

  async onPartitionModifications(topic: string): Promise<void> {
    const znode = await this.#zk.getTopicAssignment(topic, this.#d.enqueue({ type: 'PartitionModifications', topic }));
    if (!znode || this.#ctx.topicsToBeDeleted.has(topic)) return;
    const assignment = znode.partitions;
    const known = this.#ctx.assignments.get(topic) ?? new Map<number, number[]>();
    const added = [...assignment.keys()].filter((p) => !known.has(p));
    if (added.length === 0) return;
    for (const p of added) known.set(p, assignment.get(p)!);
    this.#ctx.assignments.set(topic, known);
    this.#log.info({ topic, partitions: added }, 'new partitions');
    const batch = this.#d.newBatch();
    await this.#partitions.electLeadersForNewOrOfflinePartitions(added.map((partition) => ({ topic, partition })), batch);
    batch.send();
  }

  async loadTopic(topic: string): Promise<void> {
    const assignment = await this.#zk.getTopicAssignment(topic, this.#d.enqueue({ type: 'PartitionModifications', topic }));
    if (!assignment) return;
    for (const [partition, replicas] of assignment.partitions) {
      // Partitions being reassigned (KIP-455) resume from the adding/removing replicas in the znode.
      const adding = assignment.addingReplicas.get(partition) ?? [];
      const removing = assignment.removingReplicas.get(partition) ?? [];
      this.#ctx.setReplicaSet(topic, partition, { replicas, adding, removing });
    }
    for (const partition of assignment.partitions.keys()) {
      const s = await this.#zk.getPartitionState(topic, partition);
      if (s) this.#ctx.leadership.set(tpKey(topic, partition), { topic, partition, ...s.state, zkVersion: s.zkVersion });
    }
  }

  async onIsrChangeNotification(): Promise<void> {
    const notes = await this.#zk.getIsrChangeNotifications(this.#d.enqueue({ type: 'IsrChangeNotification' }));
    if (notes.length === 0) return;
    const tps = new Map<string, TopicPartition>();
    for (const n of notes) for (const tp of n.partitions) tps.set(tpKey(tp.topic, tp.partition), tp);
    for (const tp of tps.values()) {
      if (!this.#ctx.assignments.has(tp.topic)) continue;
      const s = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (s) this.#ctx.leadership.set(tpKey(tp.topic, tp.partition), { ...tp, ...s.state, zkVersion: s.zkVersion });
    }
    const batch = this.#d.newBatch();
    batch.addUpdateMetadata([...this.#ctx.liveBrokers.keys()], [...tps.values()].filter((tp) => this.#ctx.assignments.has(tp.topic)));
    batch.send();
    await this.#zk.deleteIsrChangeNotifications(notes.map((n) => n.name), this.#ctx.epochZkVersion);
    // New replicas joining the ISR may complete a reassignment.
    const reassigning = this.#d.newBatch();
    await this.#reassignment.checkAll(reassigning);
    reassigning.send();
  }
}
