import { planReset, type PartitionOffsets, type ResetSpec } from '@gregor/client';
import { ConfigError, ErrorCode, KafkaProtocolError } from '@gregor/common';
import { ListOffsets } from '@gregor/protocol';
import { consumerGroupPath, consumerIdsPath, type KafkaZkClient } from '@gregor/zookeeper';
import type { AdminContext } from './admin-context.js';
import { brokerConnection } from './broker-connection.js';
import { commitCoordinatorOffsets, describeCoordinatorGroup, groupNotEmpty } from './coordinator-groups.js';
import { AdminError, fromKafkaError } from './errors.js';
import { readPartitionOffsets } from './partition-offsets.js';

export type GroupKind = 'zookeeper' | 'coordinator';
/** kafka-consumer-groups --reset-offsets: --to-earliest, --to-latest, --to-datetime, --to-offset, --shift-by. */
export type ResetTarget = 'earliest' | 'latest' | { timestamp: number } | { offset: number } | { shiftBy: number };

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
  /** True when nothing was committed: the offsets are what an execute would commit. */
  dryRun: boolean;
  offsets: ResetOffset[];
}

/** Coordinator group states in which nobody else commits (kafka-consumer-groups --reset-offsets refuses the others). */
const INACTIVE_STATES = new Set(['Empty', 'Dead']);

/** Whether the group has a node under /consumers (a ZooKeeper-kind group). */
export async function isZooKeeperGroup(zk: KafkaZkClient, group: string): Promise<boolean> {
  return zk.consumerGroupExists(group);
}

/**
 * Resets an inactive group's committed offsets of every partition of `topics` (default: the topics
 * it has offsets for), as kafka-consumer-groups --reset-offsets does: to the earliest or latest
 * offset, the first offset at or after a time, an offset, or the committed offset shifted by n; an
 * offset or shift outside [log start, high watermark] is clamped into it. With `dryRun` nothing is
 * committed and the answer is the plan. Like Kafka, a dry run too is refused for an active group.
 * `kind` defaults to ZooKeeper when the group has a /consumers node, else the coordinator.
 */
export async function resetGroupOffsets(
  ctx: AdminContext,
  group: string,
  to: ResetTarget,
  topics?: readonly string[],
  kind?: GroupKind,
  dryRun = false,
): Promise<ResetResult> {
  const zk = ctx.server.zk;
  const resolved = kind ?? ((await isZooKeeperGroup(zk, group)) ? 'zookeeper' : 'coordinator');
  if (resolved === 'zookeeper') {
    if (!(await isZooKeeperGroup(zk, group))) throw unknownGroup(group);
    const ids = await zk.getChildrenOrEmpty(consumerIdsPath(group));
    if (ids.length > 0) throw groupNotEmpty(group, `consumers ${ids.join(', ')} are registered under /consumers/${group}/ids`);
    const partitions = await partitionsOf(ctx, topics ?? (await zk.getChildrenOrEmpty(`${consumerGroupPath(group)}/offsets`)));
    const committed = new Map<string, number>();
    for (const [topic, ids] of partitions) {
      for (const partition of ids) {
        const previous = await zk.getConsumerOffset(group, topic, partition);
        if (previous !== null) committed.set(tpKey(topic, partition), Number(previous));
      }
    }
    const targets = await targetOffsets(ctx, partitions, to, committed);
    if (!dryRun) for (const t of targets) await zk.commitConsumerOffset(group, t.topic, t.partition, t.offset);
    return { group, kind: resolved, dryRun, offsets: targets.map((t) => ({ ...t, previousOffset: committed.get(tpKey(t.topic, t.partition)) ?? null })) };
  }
  const described = await describeCoordinatorGroup(ctx, group);
  if (!described) throw unknownGroup(group);
  if (!INACTIVE_STATES.has(described.state)) throw groupNotEmpty(group, `its state is ${described.state} with ${described.members.length} member(s)`);
  const committed = new Map(described.committed.map((c) => [tpKey(c.topic, c.partition), c.offset]));
  const partitions = await partitionsOf(ctx, topics ?? [...new Set(described.committed.map((c) => c.topic))]);
  const targets = await targetOffsets(ctx, partitions, to, committed);
  if (!dryRun) await commitCoordinatorOffsets(ctx, group, targets);
  return { group, kind: resolved, dryRun, offsets: targets.map((t) => ({ ...t, previousOffset: committed.get(tpKey(t.topic, t.partition)) ?? null })) };
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

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
 * The offset each partition resets to, planned by the client's planReset (the rules `gregor groups
 * --reset-offsets` uses, after Kafka's ConsumerGroupCommand) from each partition's log start and high
 * watermark, read from its leader, the group's committed offset, and for a time ListOffsets (the high
 * watermark when no record is that new). An offset or shift is clamped into [log start, high
 * watermark]; shifting a partition without a committed offset is an error.
 */
async function targetOffsets(
  ctx: AdminContext,
  partitions: Map<string, number[]>,
  to: ResetTarget,
  committed: ReadonlyMap<string, number>,
): Promise<{ topic: string; partition: number; offset: number }[]> {
  const spec: ResetSpec =
    to === 'earliest' || to === 'latest'
      ? { kind: to }
      : 'timestamp' in to
        ? { kind: 'datetime', timestamp: to.timestamp }
        : 'offset' in to
          ? { kind: 'offset', offset: to.offset }
          : { kind: 'shift', by: to.shiftBy };
  const known = new Map<string, PartitionOffsets>();
  for (const [topic, ids] of partitions) {
    const states = ctx.server.metadataCache.partitions(topic).filter((s) => ids.includes(s.partition));
    const offsets = await readPartitionOffsets(ctx.server, ctx.leaders, topic, states);
    const byTime = spec.kind === 'datetime' ? await offsetsForTime(ctx, topic, states, spec.timestamp) : new Map<number, number>();
    for (const partition of ids) {
      const o = offsets.get(partition);
      const start = o?.logStartOffset;
      const end = o?.highWatermark;
      if (start === null || start === undefined || end === null || end === undefined) {
        throw new AdminError('GREGOR_ERR_UNAVAILABLE', `No offsets for ${topic}-${partition}: ${o?.offsetsError ?? 'unknown partition'}. Nothing was reset.`);
      }
      known.set(tpKey(topic, partition), { logStart: start, logEnd: end, committed: committed.get(tpKey(topic, partition)) ?? null, atTime: byTime.get(partition) ?? -1 });
    }
  }
  const refs = [...partitions].flatMap(([topic, ids]) => ids.map((partition) => ({ topic, partition })));
  try {
    return planReset(refs, spec, (p) => known.get(tpKey(p.topic, p.partition))!).plan;
  } catch (err) {
    if (err instanceof ConfigError) throw fromKafkaError(ErrorCode.INVALID_REQUEST, `${err.message}. Nothing was reset.`);
    throw err;
  }
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
