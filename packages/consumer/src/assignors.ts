import { javaStringHashCode } from './java-hash.js';
import { compareThreadIds, threadIdString, type ConsumerThreadId } from './topic-count.js';

/** What every member computes the assignment from (Kafka's AssignmentContext, for the whole group). */
export interface AssignmentInput {
  /** topic → thread ids of every member subscribing to it, for every topic any member subscribes to (any order; sorted here). */
  consumersForTopic: ReadonlyMap<string, readonly ConsumerThreadId[]>;
  /** The topics being assigned (the computing consumer's own) → their partition ids (any order; sorted numerically here). */
  partitionsForTopic: ReadonlyMap<string, readonly number[]>;
}

export interface PartitionAssignment {
  topic: string;
  partition: number;
  owner: ConsumerThreadId;
}

export type AssignmentStrategyName = 'range' | 'roundrobin';

function sortedThreads(threads: readonly ConsumerThreadId[]): ConsumerThreadId[] {
  const unique = new Map(threads.map((t) => [threadIdString(t), t]));
  return [...unique.values()].sort(compareThreadIds);
}

function sortedPartitions(partitions: readonly number[]): number[] {
  return [...new Set(partitions)].sort((a, b) => a - b);
}

/**
 * RangeAssignor, per topic: sorted threads, sorted partitions; thread i takes
 * `per + (i < extra ? 1 : 0)` consecutive partitions starting at `per*i + min(i, extra)`.
 */
export function rangeAssign(input: AssignmentInput): PartitionAssignment[] {
  const out: PartitionAssignment[] = [];
  for (const topic of [...input.partitionsForTopic.keys()].sort()) {
    const threads = sortedThreads(input.consumersForTopic.get(topic) ?? []);
    const partitions = sortedPartitions(input.partitionsForTopic.get(topic)!);
    if (threads.length === 0) continue;
    const per = Math.floor(partitions.length / threads.length);
    const extra = partitions.length % threads.length;
    threads.forEach((owner, i) => {
      const start = per * i + Math.min(i, extra);
      const count = per + (i < extra ? 1 : 0);
      for (let k = start; k < start + count; k++) out.push({ topic, partition: partitions[k]!, owner });
    });
  }
  return out;
}

/**
 * RoundRobinAssignor (0.10.2, KAFKA-2434): every thread id of the group, deduplicated and sorted, in a
 * circle; every topic-partition ordered by Java's String.hashCode of "[topic,partition]" (a stable
 * sort, ties keep topic/partition order); each goes to the next thread in the circle subscribed to its topic.
 */
export function roundRobinAssign(input: AssignmentInput): PartitionAssignment[] {
  const circle = sortedThreads([...input.consumersForTopic.values()].flat());
  if (circle.length === 0) return [];
  const subscribers = new Map([...input.consumersForTopic].map(([topic, threads]) => [topic, new Set(threads.map(threadIdString))]));
  const all: { topic: string; partition: number; hash: number }[] = [];
  for (const topic of [...input.partitionsForTopic.keys()].sort()) {
    for (const partition of sortedPartitions(input.partitionsForTopic.get(topic)!)) {
      all.push({ topic, partition, hash: javaStringHashCode(`[${topic},${partition}]`) });
    }
  }
  all.sort((a, b) => a.hash - b.hash);
  const out: PartitionAssignment[] = [];
  let next = 0;
  for (const tp of all) {
    const subscribed = subscribers.get(tp.topic);
    if (!subscribed || subscribed.size === 0) continue;
    // Advance around the circle to the next thread that subscribes to this topic.
    while (!subscribed.has(threadIdString(circle[next % circle.length]!))) next++;
    out.push({ topic: tp.topic, partition: tp.partition, owner: circle[next % circle.length]! });
    next++;
  }
  return out;
}

export function assign(strategy: AssignmentStrategyName, input: AssignmentInput): PartitionAssignment[] {
  return strategy === 'range' ? rangeAssign(input) : roundRobinAssign(input);
}
