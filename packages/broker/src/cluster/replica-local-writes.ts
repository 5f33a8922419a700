import { ErrorCode, GregorError, INTERNAL_TOPICS, type Logger } from '@gregor/common';
import { RecordValidationError } from '@gregor/storage';
import type { DeleteRecordsPartitionStatus } from './delayed-delete-records.js';
import type { ProducePartitionStatus } from './delayed-produce.js';
import { recordsForAppend } from './message-format.js';
import type { Partition } from './partition.js';
import type { ReplicaLog } from './replica-log.js';

export interface ProduceEntry {
  topic: string;
  partition: number;
  records: Buffer | null;
  /** Produce v0-2: the records are a MessageSet (magic 0/1), up-converted to RecordBatch v2 on append. */
  messageSet?: boolean;
}

export interface DeleteRecordsEntry {
  topic: string;
  partition: number;
  /** The new log start offset; -1 = the high watermark. */
  offset: number;
}

/** What the writes to leader logs use of the ReplicaManager. */
export interface LocalWriteContext<L extends ReplicaLog> {
  leaderPartitionOrError(topic: string, partition: number): Partition<L>;
  minInsyncReplicas(topic: string): number;
  /** False for a compact-only topic: DeleteRecords is a POLICY_VIOLATION. */
  deleteRecordsAllowed(topic: string): boolean;
  isBrokerAlive(brokerId: number): boolean;
  /** A leader log grew or its start moved: the fetches waiting on it re-check. */
  onLogChanged(key: string): void;
  /** Records a leader log took (Kafka updates BrokerTopicStats' bytes-in and messages-in here): not a duplicate's. */
  onAppended(topic: string, bytes: number, records: number): void;
  logger: Logger;
}

/** Appends one partition's records to its leader log (Kafka's appendToLocalLog); a failure is this partition's only. */
export function appendToLocalLog<L extends ReplicaLog>(ctx: LocalWriteContext<L>, e: ProduceEntry, requiredAcks: number): ProducePartitionStatus {
  const status: ProducePartitionStatus = {
    topic: e.topic,
    partition: e.partition,
    errorCode: ErrorCode.NONE,
    baseOffset: -1,
    logAppendTimeMs: -1,
    logStartOffset: -1,
    requiredOffset: -1,
    acksPending: false,
  };
  try {
    const p = ctx.leaderPartitionOrError(e.topic, e.partition);
    let records = e.records;
    if (e.messageSet && p.log) {
      records = recordsForAppend(records, p.log.config.maxMessageBytes);
      // Produce v0-2: a set with no complete message appends nothing and succeeds (Kafka 2.4).
      if (records.length === 0) return status;
    }
    if (!records || records.length === 0) throw new GregorError(ErrorCode.CORRUPT_MESSAGE, 'empty record set');
    const info = p.appendRecordsToLeader(records, requiredAcks, ctx.minInsyncReplicas(e.topic));
    status.baseOffset = info.firstOffset;
    status.logAppendTimeMs = info.logAppendTimeMs;
    status.requiredOffset = info.lastOffset + 1;
    status.logStartOffset = p.logStartOffset;
    ctx.onLogChanged(p.key);
    if (!info.duplicate) ctx.onAppended(e.topic, records.length, info.lastOffset - info.firstOffset + 1);
  } catch (err) {
    if (err instanceof RecordValidationError) {
      status.errorCode = err.code;
      status.recordErrors = err.recordErrors;
      status.errorMessage = err.recordErrors.length > 0 ? (err.recordErrors[0]!.message ?? err.message) : null;
      ctx.logger.info({ partition: `${e.topic}-${e.partition}`, err: err.message }, 'produce refused by record validation');
    } else if (err instanceof GregorError) {
      status.errorCode = err.code;
      if (err.code !== ErrorCode.NOT_LEADER_FOR_PARTITION && err.code !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
        ctx.logger.debug({ partition: `${e.topic}-${e.partition}`, err: err.message }, 'produce rejected');
      }
    } else {
      status.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
      ctx.logger.error({ err, partition: `${e.topic}-${e.partition}` }, 'append failed');
    }
  }
  return status;
}

/** Raises one leader's log start offset for DeleteRecords and says whether the answer must wait for the followers. */
export function deleteRecordsOnLocalLog<L extends ReplicaLog>(ctx: LocalWriteContext<L>, e: DeleteRecordsEntry): DeleteRecordsPartitionStatus {
  const status: DeleteRecordsPartitionStatus = { topic: e.topic, partition: e.partition, requiredOffset: -1, lowWatermark: -1, errorCode: ErrorCode.NONE, acksPending: false };
  try {
    if (INTERNAL_TOPICS.has(e.topic)) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, `cannot delete records of internal topic ${e.topic}`);
    const p = ctx.leaderPartitionOrError(e.topic, e.partition);
    if (!ctx.deleteRecordsAllowed(e.topic)) {
      throw new GregorError(ErrorCode.POLICY_VIOLATION, `records of ${p.key} cannot be deleted: its cleanup.policy has no delete`);
    }
    // Partition is the only writer of replica state: it raises the log start.
    const { requestedOffset, logStartOffsetMoved } = p.deleteRecordsOnLeader(e.offset);
    if (logStartOffsetMoved) ctx.onLogChanged(p.key);
    status.requiredOffset = requestedOffset;
    status.lowWatermark = p.lowWatermarkIfLeader(ctx.isBrokerAlive);
    status.acksPending = status.lowWatermark < requestedOffset;
  } catch (err) {
    status.errorCode = err instanceof GregorError ? err.code : ErrorCode.KAFKA_STORAGE_ERROR;
    if (!(err instanceof GregorError)) ctx.logger.error({ err, partition: `${e.topic}-${e.partition}` }, 'delete records failed');
  }
  return status;
}
