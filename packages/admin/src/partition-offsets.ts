import { errorName } from '@gregor/common';
import type { KafkaServer, CachedPartitionState } from '@gregor/broker';
import { ListOffsets, ListOffsetsTimestamp, type ListOffsetsResponse } from '@gregor/protocol';
import type { LeaderConnections } from './leader-connections.js';

/** ListOffsets replica ids: a consumer sees the high watermark; a debugging client (-2) the log end. */
const CONSUMER_REPLICA_ID = -1;
const DEBUGGING_REPLICA_ID = -2;

export interface PartitionOffsets {
  logStartOffset: number | null;
  highWatermark: number | null;
  logEndOffset: number | null;
  /** Why the offsets are null. */
  offsetsError?: string;
}

const unknown = (reason: string): PartitionOffsets => ({ logStartOffset: null, highWatermark: null, logEndOffset: null, offsetsError: reason });

/**
 * Offsets of a topic's partitions as their leaders see them: read from the local log when this
 * broker leads the partition, otherwise asked of the leader over the inter-broker listener. A
 * partition whose leader cannot answer gets null offsets and the reason, not a failed request.
 */
export async function readPartitionOffsets(
  server: KafkaServer,
  leaders: LeaderConnections,
  topic: string,
  states: readonly CachedPartitionState[],
): Promise<Map<number, PartitionOffsets>> {
  const result = new Map<number, PartitionOffsets>();
  const remote = new Map<number, number[]>();
  for (const s of states) {
    const local = server.replicaManager.getPartition(topic, s.partition);
    if (local?.isLeader && local.log) {
      result.set(s.partition, { logStartOffset: local.logStartOffset, highWatermark: local.highWatermark, logEndOffset: local.logEndOffset });
    } else if (s.leader < 0) {
      result.set(s.partition, unknown('the partition has no leader'));
    } else {
      remote.set(s.leader, [...(remote.get(s.leader) ?? []), s.partition]);
    }
  }
  await Promise.all(
    [...remote].map(async ([leader, partitions]) => {
      for (const [p, offsets] of await askLeader(server, leaders, leader, topic, partitions)) result.set(p, offsets);
    }),
  );
  return result;
}

async function askLeader(server: KafkaServer, leaders: LeaderConnections, leader: number, topic: string, partitions: number[]): Promise<Map<number, PartitionOffsets>> {
  const listener = server.config.interBrokerListenerName;
  const endpoint = server.metadataCache.aliveBroker(leader)?.endpoints.find((e) => e.listenerName === listener);
  if (!endpoint) return new Map(partitions.map((p) => [p, unknown(`leader ${leader} is not alive or has no ${listener} endpoint`)]));
  const conn = leaders.get(leader, endpoint.host, endpoint.port);
  // One request per question: Kafka rejects a ListOffsets that names a partition twice.
  const ask = (replicaId: number, timestamp: number) =>
    conn.send(ListOffsets, {
      replicaId,
      isolationLevel: 0,
      topics: [{ name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp })) }],
    });
  let answers: [ListOffsetsResponse, ListOffsetsResponse, ListOffsetsResponse];
  try {
    answers = await Promise.all([
      ask(CONSUMER_REPLICA_ID, ListOffsetsTimestamp.earliest),
      ask(CONSUMER_REPLICA_ID, ListOffsetsTimestamp.latest),
      ask(DEBUGGING_REPLICA_ID, ListOffsetsTimestamp.latest),
    ]);
  } catch (err) {
    return new Map(partitions.map((p) => [p, unknown(`ListOffsets to leader ${leader} failed: ${(err as Error).message}`)]));
  }
  const [start, hw, leo] = answers.map((res) => new Map(res.topics.find((t) => t.name === topic)?.partitions.map((p) => [p.partitionIndex, p]) ?? []));
  const result = new Map<number, PartitionOffsets>();
  for (const p of partitions) {
    const found = [start!.get(p), hw!.get(p), leo!.get(p)];
    if (found.some((f) => !f)) {
      result.set(p, unknown(`leader ${leader} did not answer for partition ${p}`));
      continue;
    }
    const failed = found.find((f) => f!.errorCode !== 0);
    if (failed) {
      result.set(p, unknown(`leader ${leader} answered ${errorName(failed.errorCode)}`));
      continue;
    }
    result.set(p, { logStartOffset: found[0]!.offset, highWatermark: found[1]!.offset, logEndOffset: found[2]!.offset });
  }
  return result;
}
