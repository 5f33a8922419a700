import { ErrorCode, GregorError } from '@gregor/common';
import type { OffsetsForLeaderEpochRequest, OffsetsForLeaderEpochResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * OffsetsForLeaderEpoch (KIP-101/279): the end offset of the requested epoch on the leader, i.e. the
 * start of the next higher epoch (or the LEO for the current one), so a follower truncates exactly
 * the records that diverged.
 */
export function offsetsForLeaderEpochHandler(s: BrokerServices): ApiHandler<OffsetsForLeaderEpochRequest, OffsetsForLeaderEpochResponse> {
  return (req) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        try {
          const partition = s.replicaManager.leaderPartitionOrError(t.topic, p.partition);
          if (p.currentLeaderEpoch !== undefined && p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch !== partition.leaderEpoch) {
            throw new GregorError(p.currentLeaderEpoch < partition.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH);
          }
          const { epoch, endOffset } = partition.log!.leaderEpochCache.endOffsetFor(p.leaderEpoch);
          return { errorCode: ErrorCode.NONE, partition: p.partition, leaderEpoch: epoch, endOffset };
        } catch (err) {
          const code = err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
          return { errorCode: code, partition: p.partition, leaderEpoch: -1, endOffset: -1 };
        }
      }),
    })),
  });
}
