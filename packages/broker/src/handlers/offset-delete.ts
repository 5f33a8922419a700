import { ErrorCode } from '@gregor/common';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * OffsetDelete (kafka-consumer-groups --delete-offsets): partitions unknown to the cluster answer
 * UNKNOWN_TOPIC_OR_PARTITION, the rest go to the coordinator; a group-level error leaves the topics empty.
 */
export function offsetDeleteHandler(s: GroupServices): ApiHandler<OffsetDeleteRequest, OffsetDeleteResponse> {
  return async (req) => {
    const requested = req.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex })));
    const existing = requested.filter((tp) => s.metadataCache.partition(tp.topic, tp.partition) !== undefined);
    const result = await s.groupCoordinator.handleDeleteOffsets(req.groupId, existing);
    if (result.errorCode !== ErrorCode.NONE) return { errorCode: result.errorCode, throttleTimeMs: 0, topics: [] };
    const codes = new Map(result.partitions.map((p) => [`${p.topic}\u0000${p.partition}`, p.errorCode]));
    return {
      errorCode: ErrorCode.NONE,
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: codes.get(`${t.name}\u0000${p.partitionIndex}`) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        })),
      })),
    };
  };
}
