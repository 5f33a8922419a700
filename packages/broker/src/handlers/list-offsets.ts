import { ErrorCode, GregorError } from '@gregor/common';
import { decompressionCap, decodeRecordBatch, type ListOffsetsRequest, type ListOffsetsResponse } from '@gregor/protocol';
import type { PartitionLog } from '@gregor/storage';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

const LATEST = -1;
const EARLIEST = -2;
const CONSUMER_REPLICA_ID = -1;
const DEBUGGING_REPLICA_ID = -2;

/**
 * ListOffsets: latest (-1, the high watermark for clients), earliest (-2), or the first offset at or after a timestamp.
 * Version 0 answers the old question instead: up to max_num_offsets offsets from before a time (see legacyOffsets).
 */
export function listOffsetsHandler(s: BrokerServices): ApiHandler<ListOffsetsRequest, ListOffsetsResponse> {
  return (req, ctx) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        if (ctx.apiVersion === 0) return legacyOffsets(s, req.replicaId, t.name, p.partitionIndex, p.timestamp, p.maxNumOffsets ?? 1);
        try {
          // Followers (broker id) and debugging tools (-2) see the log end; consumers (-1) the high watermark.
          const found = partitionOffset(s, t.name, p.partitionIndex, p.timestamp, req.replicaId !== -1, p.currentLeaderEpoch ?? -1);
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, ...found };
        } catch (err) {
          const code = err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
          return { partitionIndex: p.partitionIndex, errorCode: code, timestamp: -1, offset: -1, leaderEpoch: -1 };
        }
      }),
    })),
  });
}

/** What an offset lookup reads: the partitions this broker leads and their topics' configs. */
export type OffsetLookup = Pick<BrokerServices, 'replicaManager' | 'topicConfigs'>;

/**
 * ListOffsets v1+ for one partition this broker leads (the HTTP admin asks it in-process): latest (-1), earliest (-2),
 * or the first record at or after a timestamp (offset -1 when none). A replica sees up to the log end, a consumer up
 * to the high watermark. Throws the partition's error (NOT_LEADER_FOR_PARTITION, FENCED_LEADER_EPOCH, ...).
 */
export function partitionOffset(s: OffsetLookup, topic: string, partitionIndex: number, timestamp: number, isReplica: boolean, currentLeaderEpoch = -1) {
  const partition = s.replicaManager.leaderPartitionOrError(topic, partitionIndex);
  if (currentLeaderEpoch >= 0 && currentLeaderEpoch !== partition.leaderEpoch) {
    throw new GregorError(currentLeaderEpoch < partition.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH);
  }
  const log = partition.log!;
  let offset: number;
  let found: { offset: number; timestamp: number } | null = null;
  if (timestamp === LATEST) offset = isReplica ? log.logEndOffset : partition.highWatermark;
  else if (timestamp === EARLIEST) offset = log.logStartOffset;
  else {
    const first = firstRecordAtOrAfter(log, timestamp, decompressionCap(s.topicConfigs.get(topic).maxMessageBytes));
    found = first && (isReplica || first.offset < partition.highWatermark) ? first : null;
    offset = found ? found.offset : -1;
  }
  return { timestamp: found ? found.timestamp : -1, offset, leaderEpoch: partition.leaderEpoch };
}

/**
 * ListOffsets v0 (Kafka's handleListOffsetRequestV0 and Partition.legacyFetchOffsetsForTimestamp): segment
 * base offsets before `timestamp` (-1 latest, -2 earliest), newest first. A consumer (replica id -1) never
 * sees past the high watermark: offsets above it are replaced by the high watermark itself. Only the leader
 * answers, except to a debugging client (-2), which any replica serves.
 */
function legacyOffsets(s: BrokerServices, replicaId: number, topic: string, partitionIndex: number, timestamp: number, maxNumOffsets: number) {
  try {
    let partition;
    if (replicaId === DEBUGGING_REPLICA_ID) {
      partition = s.replicaManager.getPartition(topic, partitionIndex);
      if (!partition?.log) throw new GregorError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown partition ${topic}-${partitionIndex}`);
    } else {
      partition = s.replicaManager.leaderPartitionOrError(topic, partitionIndex);
    }
    let offsets = partition.log!.legacyOffsetsBefore(timestamp, maxNumOffsets);
    if (replicaId === CONSUMER_REPLICA_ID) {
      const hw = partition.highWatermark;
      if (offsets.some((o) => o > hw)) offsets = [hw, ...offsets.filter((o) => o <= hw)];
    }
    return { partitionIndex, errorCode: ErrorCode.NONE, oldStyleOffsets: offsets, timestamp: -1, offset: -1 };
  } catch (err) {
    const code = err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
    return { partitionIndex, errorCode: code, oldStyleOffsets: [], timestamp: -1, offset: -1 };
  }
}

/**
 * The first record whose timestamp is >= `timestamp`, as Kafka answers: the time index finds the
 * batch, then the batch is decoded (decompressed if needed, at most to `maxDecompressedBytes`) to find
 * the record inside it. A batch that cannot be decoded answers CORRUPT_MESSAGE, as Kafka does.
 */
function firstRecordAtOrAfter(log: PartitionLog, timestamp: number, maxDecompressedBytes: number): { offset: number; timestamp: number } | null {
  const batch = log.offsetForTimestamp(timestamp);
  if (!batch) return null;
  const { records } = log.read(batch.offset, 1, log.logEndOffset, true);
  const decoded = decodeRecordBatch(records, 0, { verifyCrc: false, maxDecompressedBytes });
  const record = decoded.records.find((r) => r.timestamp >= timestamp && r.offset >= batch.offset);
  return record ? { offset: record.offset, timestamp: record.timestamp } : batch;
}
