import { ErrorCode } from '@gregor/common';
import { DescribeLogDirs, ListOffsets, ListOffsetsTimestamp } from '@gregor/protocol';
import type { AdminContext } from './admin-context.js';
import { brokerConnection } from './broker-connection.js';

export interface TopicStats {
  /** Records a consumer can read: the sum over partitions of high watermark minus log start; null when a leader did not answer. */
  messages: number | null;
  /** Bytes of one copy of the topic: each partition's leader replica, as DescribeLogDirs reports it. */
  sizeBytes: number | null;
  /** Sum of the partitions' high watermarks: grows by the records produced (clients derive rates from it). */
  highWatermarkSum: number | null;
}

const CONSUMER = -1;

/**
 * Sizes and offsets of every topic in this broker's metadata, in few requests: per leader one
 * ListOffsets for the log starts and one for the high watermarks (all topics at once), and per live
 * broker one DescribeLogDirs. A broker that does not answer leaves nulls, not a failed request.
 */
export async function topicStats(ctx: AdminContext): Promise<Map<string, TopicStats>> {
  const cache = ctx.server.metadataCache;
  const byLeader = new Map<number, Map<string, number[]>>();
  for (const topic of cache.allTopics()) {
    for (const p of cache.partitions(topic)) {
      if (p.leader < 0) continue;
      const topics = byLeader.get(p.leader) ?? new Map<string, number[]>();
      topics.set(topic, [...(topics.get(topic) ?? []), p.partition]);
      byLeader.set(p.leader, topics);
    }
  }
  const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
  const starts = new Map<string, number>();
  const highWatermarks = new Map<string, number>();
  const sizes = new Map<string, number>();

  const askLeader = async (leader: number, topics: Map<string, number[]>) => {
    const conn = brokerConnection(ctx, leader);
    const ask = (timestamp: number) =>
      conn.send(ListOffsets, {
        replicaId: CONSUMER,
        isolationLevel: 0,
        topics: [...topics].map(([name, ids]) => ({ name, partitions: ids.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp })) })),
      });
    const [start, hw] = await Promise.all([ask(ListOffsetsTimestamp.earliest), ask(ListOffsetsTimestamp.latest)]);
    for (const [res, into] of [
      [start, starts],
      [hw, highWatermarks],
    ] as const) {
      for (const t of res.topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE && p.offset >= 0) into.set(key(t.name, p.partitionIndex), p.offset);
    }
  };
  const askSizes = async (brokerId: number) => {
    const res = await brokerConnection(ctx, brokerId).send(DescribeLogDirs, { topics: null });
    for (const dir of res.results) {
      if (dir.errorCode !== ErrorCode.NONE) continue;
      for (const t of dir.topics) {
        for (const p of t.partitions) {
          if (p.isFutureKey) continue;
          const leader = cache.partitions(t.name).find((s) => s.partition === p.partitionIndex)?.leader;
          if (leader === brokerId) sizes.set(key(t.name, p.partitionIndex), p.partitionSize);
        }
      }
    }
  };
  await Promise.all([
    ...[...byLeader].map(([leader, topics]) => askLeader(leader, topics).catch(() => {})),
    ...cache.aliveBrokers().map((b) => askSizes(b.id).catch(() => {})),
  ]);

  const result = new Map<string, TopicStats>();
  for (const topic of cache.allTopics()) {
    let messages: number | null = 0;
    let sizeBytes: number | null = 0;
    let highWatermarkSum: number | null = 0;
    for (const p of cache.partitions(topic)) {
      const k = key(topic, p.partition);
      const start = starts.get(k);
      const hw = highWatermarks.get(k);
      const size = sizes.get(k);
      messages = messages === null || start === undefined || hw === undefined ? null : messages + Math.max(0, hw - start);
      highWatermarkSum = highWatermarkSum === null || hw === undefined ? null : highWatermarkSum + hw;
      sizeBytes = sizeBytes === null || size === undefined ? null : sizeBytes + size;
    }
    result.set(topic, { messages, sizeBytes, highWatermarkSum });
  }
  return result;
}
