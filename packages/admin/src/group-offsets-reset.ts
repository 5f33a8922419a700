import { ErrorCode, KafkaProtocolError } from '@gregor/common';
import { ListOffsets } from '@gregor/protocol';
import { consumerGroupPath, consumerIdsPath, type KafkaZkClient } from '@gregor/zookeeper';
import type { AdminContext } from './admin-context.js';
import { brokerConnection } from './broker-connection.js';
import { commitCoordinatorOffsets, describeCoordinatorGroup, groupNotEmpty } from './coordinator-groups.js';
import { AdminError, fromKafkaError } from './errors.js';
import { readPartitionOffsets } from './partition-offsets.js';

export type GroupKind = 'zookeeper' | 'coordinator';
export type ResetTarget = 'earliest' | 'latest' | { timestamp: number };

export interface ResetOffset {
  topic: string;
  partition: number;
  /** The committed offset before the reset, null when there was none. */
  previousOffset: number | null;
  offset: number;
}

export interface ResetResult {
  group: string;
  kind: GroupKind;
  offsets: ResetOffset[];
}

/** Coordinator group states in which nobody else commits (kafka-consumer-groups --reset-offsets refuses the others). */
const INACTIVE_STATES = new Set(['Empty', 'Dead']);

/** Whether the group has a node under /consumers (a ZooKeeper-kind group). */
export async function isZooKeeperGroup(zk: KafkaZkClient, group: string): Promise<boolean> {
  return (await zk.zk.exists(consumerGroupPath(group))) !== null;
}

/**
 * Resets an inactive group's committed offsets of every partition of `topics` (default: the topics
 * it has offsets for) to the earliest or latest offset, or the first offset at or after a time.
 * `kind` defaults to ZooKeeper when the group has a /consumers node, else the coordinator.
 */
export async function resetGroupOffsets(ctx: AdminContext, group: string, to: ResetTarget, topics?: readonly string[], kind?: GroupKind): Promise<ResetResult> {
  const zk = ctx.server.zk;
  const resolved = kind ?? ((await isZooKeeperGroup(zk, group)) ? 'zookeeper' : 'coordinator');
  if (resolved === 'zookeeper') {
    if (!(await isZooKeeperGroup(zk, group))) throw unknownGroup(group);
    const ids = await zk.getChildrenOrEmpty(consumerIdsPath(group));
    if (ids.length > 0) throw groupNotEmpty(group, `consumers ${ids.join(', ')} are registered under /consumers/${group}/ids`);
    const partitions = await partitionsOf(ctx, topics ?? (await zk.getChildrenOrEmpty(`${consumerGroupPath(group)}/offsets`)));
    const targets = await targetOffsets(ctx, partitions, to);
    const offsets: ResetOffset[] = [];
    for (const t of targets) {
      const previous = await zk.getConsumerOffset(group, t.topic, t.partition);
      await zk.commitConsumerOffset(group, t.topic, t.partition, t.offset);
      offsets.push({ ...t, previousOffset: previous === null ? null : Number(previous) });
    }
    return { group, kind: resolved, offsets };
  }
  const described = await describeCoordinatorGroup(ctx, group);
  if (!described) throw unknownGroup(group);
  if (!INACTIVE_STATES.has(described.state)) throw groupNotEmpty(group, `its state is ${described.state} with ${described.members.length} member(s)`);
  const committed = new Map(described.committed.map((c) => [`${c.topic}\u0000${c.partition}`, c.offset]));
  const partitions = await partitionsOf(ctx, topics ?? [...new Set(described.committed.map((c) => c.topic))]);
  const targets = await targetOffsets(ctx, partitions, to);
  await commitCoordinatorOffsets(ctx, group, targets);
  return { group, kind: resolved, offsets: targets.map((t) => ({ ...t, previousOffset: committed.get(`${t.topic}\u0000${t.partition}`) ?? null })) };
}

function unknownGroup(group: string): AdminError {
  return fromKafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group '${group}' does not exist.`);
}

/** Every partition of the topics, sorted; an unknown topic is a 404. */
async function partitionsOf(ctx: AdminContext, topics: readonly string[]): Promise<Map<string, number[]>> {
  const result = new Map<string, number[]>();
  for (const topic of [...new Set(topics)].sort()) {
    if (!ctx.server.metadataCache.contains(topic)) throw fromKafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${topic}' does not exist.`);
    result.set(topic, ctx.server.metadataCache.partitions(topic).map((s) => s.partition).sort((a, b) => a - b));
  }
  return result;
}

/**
 * The offset each partition resets to, from its leader: log start (earliest), high watermark (latest,
 * what a consumer can reach), or ListOffsets for the time — the high watermark when no record is that new.
 */
async function targetOffsets(ctx: AdminContext, partitions: Map<string, number[]>, to: ResetTarget): Promise<{ topic: string; partition: number; offset: number }[]> {
  const out: { topic: string; partition: number; offset: number }[] = [];
  for (const [topic, ids] of partitions) {
    const states = ctx.server.metadataCache.partitions(topic).filter((s) => ids.includes(s.partition));
    const known = await readPartitionOffsets(ctx.server, ctx.leaders, topic, states);
    const byTime = typeof to === 'object' ? await offsetsForTime(ctx, topic, states, to.timestamp) : new Map<number, number>();
    for (const partition of ids) {
      const o = known.get(partition);
      const offset = to === 'earliest' ? o?.logStartOffset : to === 'latest' ? o?.highWatermark : (byTime.get(partition) ?? o?.highWatermark);
      if (offset === null || offset === undefined) {
        throw new AdminError('GREGOR_ERR_UNAVAILABLE', `No offsets for ${topic}-${partition}: ${o?.offsetsError ?? 'unknown partition'}. Nothing was reset.`);
      }
      out.push({ topic, partition, offset });
    }
  }
  return out;
}

/** ListOffsets for a time, one request per leader; partitions without a record that new are left out. */
async function offsetsForTime(ctx: AdminContext, topic: string, states: readonly { partition: number; leader: number }[], timestamp: number): Promise<Map<number, number>> {
  const byLeader = new Map<number, number[]>();
  for (const s of states) {
    if (s.leader < 0) throw fromKafkaError(ErrorCode.LEADER_NOT_AVAILABLE, `${topic}-${s.partition} has no leader.`);
    byLeader.set(s.leader, [...(byLeader.get(s.leader) ?? []), s.partition]);
  }
  const result = new Map<number, number>();
  await Promise.all(
    [...byLeader].map(async ([leader, ids]) => {
      const res = await brokerConnection(ctx, leader).send(ListOffsets, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: topic, partitions: ids.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp })) }],
      });
      for (const p of res.topics.find((t) => t.name === topic)?.partitions ?? []) {
        if (p.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(p.errorCode, `ListOffsets ${topic}-${p.partitionIndex} at ${timestamp}`);
        if (p.offset >= 0) result.set(p.partitionIndex, p.offset);
      }
    }),
  );
  return result;
}
