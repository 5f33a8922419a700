import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, type Admin } from '@gregor/client';
import { ErrorCode, KafkaProtocolError } from '@gregor/common';
import type { PartitionOffsets, PartitionRef } from './reset-plan.js';

export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

function byTopic(partitions: readonly PartitionRef[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const p of partitions) out.set(p.topic, [...new Set([...(out.get(p.topic) ?? []), p.partition])]);
  return out;
}

/** Log end offsets (high watermarks) of partitions; a topic that cannot be read maps to null (shown as "-"). */
export async function logEndOffsets(admin: Admin, partitions: readonly PartitionRef[]): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  await Promise.all(
    [...byTopic(partitions)].map(async ([topic, ids]) => {
      let found = new Map<number, { offset: number }>();
      try {
        found = await admin.listPartitionOffsets(topic, ids.map((partition) => ({ partition, timestamp: LATEST_TIMESTAMP })));
      } catch {
        // Deleted topic, offline partition: unknown, as kafka-consumer-groups shows it.
      }
      for (const p of ids) out.set(tpKey(topic, p), found.get(p)?.offset ?? null);
    }),
  );
  return out;
}

/** Every partition of the topics (from metadata); an unknown topic is an error naming it. */
export async function partitionsOfTopics(admin: Admin, topics: readonly string[]): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  const described = await admin.describeTopics([...new Set(topics)]);
  for (const t of described) {
    if (t.errorCode !== ErrorCode.NONE || t.partitions.length === 0) throw new KafkaProtocolError(t.errorCode || ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic ${t.name} does not exist`);
    out.set(t.name, t.partitions.map((p) => p.partition));
  }
  return out;
}

/**
 * What a reset needs of each partition: log start and end (ListOffsets earliest and latest) and, for a
 * time, the first offset at or after it. Any partition that cannot be read fails the whole reset.
 */
export async function resetInputs(admin: Admin, partitions: readonly PartitionRef[], committed: ReadonlyMap<string, number>, timestamp?: number): Promise<(p: PartitionRef) => PartitionOffsets> {
  const known = new Map<string, PartitionOffsets>();
  await Promise.all(
    [...byTopic(partitions)].map(async ([topic, ids]) => {
      const ask = (ts: number) => admin.listPartitionOffsets(topic, ids.map((partition) => ({ partition, timestamp: ts })));
      const [starts, ends, atTime] = await Promise.all([ask(EARLIEST_TIMESTAMP), ask(LATEST_TIMESTAMP), timestamp === undefined ? Promise.resolve(undefined) : ask(timestamp)]);
      for (const p of ids) {
        const logStart = starts.get(p)?.offset;
        const logEnd = ends.get(p)?.offset;
        if (logStart === undefined || logEnd === undefined) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no offsets for ${topic}-${p}; nothing was reset`);
        known.set(tpKey(topic, p), { logStart, logEnd, committed: committed.get(tpKey(topic, p)) ?? null, ...(atTime ? { atTime: atTime.get(p)?.offset ?? -1 } : {}) });
      }
    }),
  );
  return (p) => known.get(tpKey(p.topic, p.partition))!;
}
