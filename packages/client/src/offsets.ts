import { ErrorCode, GregorError, KafkaProtocolError } from '@gregor/common';
import { ListOffsets } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { retry } from '@gregor/net';

/** ListOffsets' special timestamps. */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;

export interface OffsetQuery {
  partition: number;
  /** -1 latest (log end offset), -2 earliest (log start offset), or a time in ms. */
  timestamp: number;
}

export interface PartitionOffset {
  partition: number;
  /** -1 when no record has a timestamp at or after the one asked for. */
  offset: number;
  timestamp: number;
  leaderEpoch: number;
}

/**
 * ListOffsets for several partitions of a topic: one request per leader, with the partitions
 * that failed retriably (leader moved, not elected yet) asked again after a metadata refresh.
 */
export async function listOffsets(client: KafkaClient, topic: string, queries: readonly OffsetQuery[]): Promise<Map<number, PartitionOffset>> {
  const results = new Map<number, PartitionOffset>();
  await retry(
    async () => {
      await client.ensureTopics([topic]);
      const byLeader = new Map<number, OffsetQuery[]>();
      for (const q of queries) {
        if (results.has(q.partition)) continue;
        const leader = await client.leaderFor(topic, q.partition);
        byLeader.set(leader, [...(byLeader.get(leader) ?? []), q]);
      }
      const failures: GregorError[] = [];
      await Promise.all(
        [...byLeader].map(async ([leader, list]) => {
          const response = await client.sendTo(leader, ListOffsets, {
            replicaId: -1,
            isolationLevel: 0,
            topics: [{ name: topic, partitions: list.map((q) => ({ partitionIndex: q.partition, currentLeaderEpoch: -1, timestamp: q.timestamp })) }],
          });
          for (const q of list) {
            const p = response.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partitionIndex === q.partition);
            if (!p) {
              failures.push(new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `ListOffsets response has no result for ${topic}-${q.partition}`));
              continue;
            }
            if (p.errorCode !== ErrorCode.NONE) {
              const error = new KafkaProtocolError(p.errorCode, `ListOffsets for ${topic}-${q.partition} failed`);
              if (!error.retriable) throw error;
              failures.push(error);
              continue;
            }
            results.set(q.partition, { partition: q.partition, offset: p.offset, timestamp: p.timestamp, leaderEpoch: p.leaderEpoch ?? -1 });
          }
        }),
      );
      if (failures.length > 0) throw failures[0]!;
    },
    { ...client.retryOptions, onRetry: () => client.refreshMetadata([topic]).then(() => undefined, () => undefined) },
  );
  return results;
}
