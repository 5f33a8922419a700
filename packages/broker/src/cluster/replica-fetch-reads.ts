import { ErrorCode, GregorError, type Logger } from '@gregor/common';
import type { ReadBufferPool } from '@gregor/storage';
import type { Partition } from './partition.js';
import type { ReplicaLog } from './replica-log.js';

export interface FetchPartitionRequest {
  topic: string;
  partition: number;
  fetchOffset: number;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
  /** A follower's own log start offset (Fetch v5+; -1 from consumers). */
  logStartOffset?: number;
}

export interface FetchPartitionData {
  topic: string;
  partition: number;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  records: Buffer;
}

export interface FetchParams {
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  partitions: readonly FetchPartitionRequest[];
  /**
   * Every partition with data returns at least its first whole batch, not only the first one (Fetch v0-3: the
   * answer is down-converted and then cut at the limits, so what is read must hold whole batches).
   */
  minOneBatchPerPartition?: boolean;
  /** Read into this pool's buffers; whoever writes the answer out gives them back (the Fetch handler's socket). */
  readPool?: ReadBufferPool;
}

export interface FetchReadResult {
  bytes: number;
  mustReturn: boolean;
  partitions: FetchPartitionData[];
}

/** The partitions a read looks up (ReplicaManager). */
export interface LocalPartitions<L extends ReplicaLog> {
  leaderPartitionOrError(topic: string, partition: number): Partition<L>;
  getPartition(topic: string, partition: number): Partition<L> | undefined;
}

/**
 * Kafka's ReplicaManager.readFromLocalLog: reads each partition from its leader log, up to the HW for a consumer or
 * the LEO for a follower, within partitionMaxBytes and the request's maxBytes. An error of one partition is its own
 * (answered in its errorCode) and makes the fetch return at once.
 */
export function readFromLocalLogs<L extends ReplicaLog>(partitions: LocalPartitions<L>, params: FetchParams, isFollower: boolean, logger: Logger): FetchReadResult {
  let bytes = 0;
  let mustReturn = false;
  let budget = params.maxBytes;
  const results = params.partitions.map((r): FetchPartitionData => {
    const out: FetchPartitionData = {
      topic: r.topic,
      partition: r.partition,
      errorCode: ErrorCode.NONE,
      highWatermark: -1,
      lastStableOffset: -1,
      logStartOffset: -1,
      // Never null: librdkafka rejects a whole response with a null record set ("invalid
      // MessageSetSize -1"), so an error partition carries an empty one, as Kafka sends.
      records: EMPTY,
    };
    try {
      const p = partitions.leaderPartitionOrError(r.topic, r.partition);
      if (r.currentLeaderEpoch >= 0 && r.currentLeaderEpoch !== p.leaderEpoch) {
        throw new GregorError(
          r.currentLeaderEpoch < p.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH,
          `leader epoch ${r.currentLeaderEpoch} does not match ${p.leaderEpoch}`,
        );
      }
      const log = p.log as L;
      out.highWatermark = p.highWatermark;
      out.lastStableOffset = p.highWatermark;
      out.logStartOffset = p.logStartOffset;
      const maxOffset = isFollower ? log.logEndOffset : p.highWatermark;
      const limit = Math.min(r.partitionMaxBytes, Math.max(budget, 0));
      if (r.fetchOffset === maxOffset && r.fetchOffset >= log.logStartOffset) {
        out.records = EMPTY;
      } else {
        // The first partition with data returns at least one whole batch, even past max_bytes.
        const minOne = bytes === 0 || params.minOneBatchPerPartition === true;
        const { records } = log.read(r.fetchOffset, limit, maxOffset, minOne, params.readPool);
        out.records = records;
        bytes += records.length;
        budget -= records.length;
      }
    } catch (err) {
      mustReturn = true;
      out.errorCode = err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
      if (!(err instanceof GregorError)) logger.error({ err, partition: `${r.topic}-${r.partition}` }, 'read failed');
      if (out.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
        const p = partitions.getPartition(r.topic, r.partition);
        if (p) {
          out.highWatermark = p.highWatermark;
          out.logStartOffset = p.logStartOffset;
        }
      }
    }
    return out;
  });
  return { bytes, mustReturn, partitions: results };
}

/**
 * Records a follower's fetch offset for the partitions read without error (Kafka's updateFollowerFetchState after
 * readFromLocalLog), and puts the HW it may just have moved into the answer.
 */
export function updateFollowerFetchState<L extends ReplicaLog>(
  partitions: LocalPartitions<L>,
  params: FetchParams,
  results: FetchPartitionData[],
  onFollowerFetched: (key: string) => void,
  logger: Logger,
): void {
  const now = Date.now();
  params.partitions.forEach((r, i) => {
    if (results[i]?.errorCode !== ErrorCode.NONE) return;
    const p = partitions.getPartition(r.topic, r.partition);
    const recorded = p?.updateFollowerFetchState(params.replicaId, { fetchOffset: r.fetchOffset, currentLeaderEpoch: r.currentLeaderEpoch, logStartOffset: r.logStartOffset ?? -1 }, now);
    if (!recorded) {
      logger.debug({ partition: `${r.topic}-${r.partition}`, replica: params.replicaId }, 'follower fetch not recorded: not an assigned replica of this leader');
      return;
    }
    // The answer carries the HW this fetch may just have moved (Kafka's LogReadResult.updateLeaderReplicaInfo).
    results[i]!.highWatermark = p!.highWatermark;
    results[i]!.lastStableOffset = p!.highWatermark;
    // The follower's log start may have reached what a DeleteRecords waits for.
    onFollowerFetched(p!.key);
  });
}

const EMPTY = Buffer.alloc(0);
