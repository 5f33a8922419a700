import { listOffsets, LATEST_TIMESTAMP, type KafkaClient } from '@gregor/client';
import { consumerGroupPath, consumersPath, type ConsumerRegistration, type KafkaZkClient } from '@gregor/zookeeper';

export interface GroupMember {
  consumerId: string;
  pattern: ConsumerRegistration['pattern'];
  subscription: Record<string, number>;
  timestamp: number;
}

export interface GroupPartition {
  topic: string;
  partition: number;
  /** `<consumerId>-<stream>` or null when nobody owns it. */
  owner: string | null;
  /** The committed next offset, or null when none. */
  committedOffset: number | null;
  /** The leader's log end offset, or null when it could not be read. */
  logEndOffset: number | null;
  /** logEndOffset - committedOffset when both are known. */
  lag: number | null;
}

/** Log end offsets (the high watermark a consumer can reach) of some partitions of a topic. */
export type EndOffsetsReader = (topic: string, partitions: readonly number[]) => Promise<Map<number, number>>;

/** An EndOffsetsReader over a client: ListOffsets latest to each leader. */
export function endOffsetsFrom(client: KafkaClient): EndOffsetsReader {
  return async (topic, partitions) => {
    const found = await listOffsets(client, topic, partitions.map((partition) => ({ partition, timestamp: LATEST_TIMESTAMP })));
    return new Map([...found].map(([p, o]) => [p, o.offset]));
  };
}

export interface GroupDescription {
  group: string;
  members: GroupMember[];
  partitions: GroupPartition[];
}

/** Every group with a node under /consumers (old consumers' groups). */
export function listGroups(zk: KafkaZkClient): Promise<string[]> {
  return zk.getChildrenOrEmpty(consumersPath);
}

/**
 * A group as ZooKeeper and the brokers show it (kafka-consumer-groups --zookeeper --describe): members
 * with their subscriptions, and for every partition of every topic the group consumes or has offsets
 * for: owner, committed offset, log end offset and lag. Returns null for an unknown group.
 */
export async function describeGroup(zk: KafkaZkClient, group: string, endOffsets?: EndOffsetsReader): Promise<GroupDescription | null> {
  const base = consumerGroupPath(group);
  if (!(await zk.consumerGroupExists(group))) return null;
  const ids = await zk.getChildrenOrEmpty(`${base}/ids`);
  const registrations = await Promise.all(ids.map((id) => zk.getConsumerRegistration(group, id)));
  const members: GroupMember[] = ids.flatMap((id, i) => {
    const r = registrations[i];
    return r ? [{ consumerId: id, pattern: r.pattern, subscription: r.subscription, timestamp: r.timestamp }] : [];
  });
  const topics = new Set([...(await zk.getChildrenOrEmpty(`${base}/offsets`)), ...(await zk.getChildrenOrEmpty(`${base}/owners`))]);
  for (const m of members) if (m.pattern === 'static') for (const t of Object.keys(m.subscription)) topics.add(t);

  const partitions: GroupPartition[] = [];
  for (const topic of [...topics].sort()) {
    const assignment = await zk.getTopicAssignment(topic);
    const ids = new Set<number>(assignment ? [...assignment.assignment.partitions.keys()] : []);
    for (const p of await zk.getChildrenOrEmpty(`${base}/offsets/${topic}`)) ids.add(Number(p));
    const sorted = [...ids].filter(Number.isInteger).sort((a, b) => a - b);
    let ends = new Map<number, number>();
    if (endOffsets && assignment && sorted.length > 0) {
      try {
        ends = await endOffsets(topic, sorted);
      } catch {
        // Brokers unreachable or partitions offline: log end offsets stay unknown.
      }
    }
    for (const partition of sorted) {
      const [owner, committed] = await Promise.all([zk.getPartitionOwner(group, topic, partition), zk.getConsumerOffset(group, topic, partition)]);
      const committedOffset = committed === null ? null : Number(committed);
      const logEndOffset = ends.get(partition) ?? null;
      partitions.push({ topic, partition, owner, committedOffset, logEndOffset, lag: committedOffset !== null && logEndOffset !== null ? Math.max(0, logEndOffset - committedOffset) : null });
    }
  }
  return { group, members, partitions };
}
