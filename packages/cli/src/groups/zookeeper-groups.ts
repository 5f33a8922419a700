import type { GroupDescription as ZkGroupDescription } from '@gregor/consumer';
import { consumerGroupPath, type KafkaZkClient } from '@gregor/zookeeper';
import type { MemberRow, OffsetRow, StateRow } from './group-tables.js';
import { tpKey } from './partition-offsets.js';

/**
 * Groups of the ZooKeeper consumer connector (kafka-consumer-groups --zookeeper of Kafka 0.10): members
 * under /consumers/G/ids, owners under /consumers/G/owners, offsets under /consumers/G/offsets. They have
 * no client id or host; the owner (consumerId-thread) is the CONSUMER-ID.
 */

export function zkOffsetRows(g: ZkGroupDescription): OffsetRow[] {
  return g.partitions.map((p) => ({ group: g.group, topic: p.topic, partition: p.partition, current: p.committedOffset, logEnd: p.logEndOffset, lag: p.lag, consumerId: p.owner, host: null, clientId: null }));
}

export function zkMemberRows(g: ZkGroupDescription): MemberRow[] {
  return g.members.map((m) => ({
    group: g.group,
    consumerId: m.consumerId,
    groupInstanceId: '',
    host: '-',
    clientId: '-',
    partitions: g.partitions.filter((p) => p.owner !== null && p.owner.startsWith(`${m.consumerId}-`)).map((p) => ({ topic: p.topic, partition: p.partition })),
  }));
}

/** The connector has no coordinator nor recorded strategy: a group with registered members is Stable, else Empty. */
export function zkStateRow(g: ZkGroupDescription): StateRow {
  return { group: g.group, coordinator: '- (ZooKeeper)', assignmentStrategy: '-', state: g.members.length > 0 ? 'Stable' : 'Empty', members: g.members.length };
}

/** Consumers registered under /consumers/G/ids (the group is active while there are any). */
export function zkMembers(zk: KafkaZkClient, group: string): Promise<string[]> {
  return zk.getChildrenOrEmpty(`${consumerGroupPath(group)}/ids`);
}

/** Committed offsets under /consumers/G/offsets/T/P. */
export async function zkCommitted(zk: KafkaZkClient, group: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const topic of await zk.getChildrenOrEmpty(`${consumerGroupPath(group)}/offsets`)) {
    for (const p of await zk.getChildrenOrEmpty(`${consumerGroupPath(group)}/offsets/${topic}`)) {
      if (!/^\d+$/.test(p)) continue;
      const offset = await zk.getConsumerOffset(group, topic, Number(p));
      if (offset !== null) out.set(tpKey(topic, Number(p)), Number(offset));
    }
  }
  return out;
}

export async function zkGroupExists(zk: KafkaZkClient, group: string): Promise<boolean> {
  return zk.consumerGroupExists(group);
}

export async function zkWriteOffsets(zk: KafkaZkClient, group: string, plan: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
  for (const p of plan) await zk.commitConsumerOffset(group, p.topic, p.partition, p.offset);
}

/** Removes /consumers/G (ids, owners, offsets): Kafka's AdminUtils.deleteConsumerGroupInZK. */
export async function zkDeleteGroup(zk: KafkaZkClient, group: string): Promise<void> {
  await zk.deleteConsumerGroup(group);
}
