import { ErrorCode } from '@gregor/common';
import type { OffsetCommitRequest, OffsetCommitRequestTopic, OffsetCommitResponse, OffsetCommitResponseTopic } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * OffsetCommit: partitions the metadata does not know get UNKNOWN_TOPIC_OR_PARTITION (as Kafka's
 * KafkaApis does before the coordinator sees them); the rest are validated against the group's
 * generation and written to __consumer_offsets with acks=-1. Answers keep the request's order.
 */
export function offsetCommitHandler(s: GroupServices): ApiHandler<OffsetCommitRequest, OffsetCommitResponse> {
  return async (req) => {
    const known: OffsetCommitRequestTopic[] = [];
    for (const t of req.topics) {
      const partitions = t.partitions.filter((p) => s.metadataCache.partition(t.name, p.partitionIndex) !== undefined);
      if (partitions.length > 0) known.push({ name: t.name, partitions });
    }
    const committed = known.length > 0 ? await s.groupCoordinator.handleCommitOffsets({ ...req, topics: known }) : [];
    const codes = new Map<string, number>();
    for (const t of committed) for (const p of t.partitions) codes.set(`${t.name}\0${p.partitionIndex}`, p.errorCode);
    const topics: OffsetCommitResponseTopic[] = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: codes.get(`${t.name}\0${p.partitionIndex}`) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      })),
    }));
    return { throttleTimeMs: 0, topics };
  };
}
