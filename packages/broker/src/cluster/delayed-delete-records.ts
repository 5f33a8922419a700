import { ErrorCode, GregorError } from '@gregor/common';
import { DelayedOperation } from '../purgatory/delayed-operation.js';
import type { Partition } from './partition.js';
import type { ReplicaLog } from './replica-log.js';

export interface DeleteRecordsPartitionStatus {
  topic: string;
  partition: number;
  /** The new log start offset asked for (-1 already replaced by the high watermark); -1 on error. */
  requiredOffset: number;
  lowWatermark: number;
  errorCode: number;
  /** Still waiting for the live followers to raise their log start offsets. */
  acksPending: boolean;
}

/**
 * Kafka's DelayedDeleteRecords: the response waits until the low watermark (smallest log start offset of the leader
 * and its live followers) reaches each requested offset, or the timeout (REQUEST_TIMED_OUT, last low watermark kept).
 */
export class DelayedDeleteRecords extends DelayedOperation {
  readonly #statuses: DeleteRecordsPartitionStatus[];
  readonly #lookup: (topic: string, partition: number) => Partition<ReplicaLog> | undefined;
  readonly #isBrokerAlive: (brokerId: number) => boolean;
  readonly #respond: (statuses: DeleteRecordsPartitionStatus[]) => void;

  constructor(
    timeoutMs: number,
    statuses: DeleteRecordsPartitionStatus[],
    lookup: (topic: string, partition: number) => Partition<ReplicaLog> | undefined,
    isBrokerAlive: (brokerId: number) => boolean,
    respond: (statuses: DeleteRecordsPartitionStatus[]) => void,
  ) {
    super(timeoutMs);
    this.#statuses = statuses;
    this.#lookup = lookup;
    this.#isBrokerAlive = isBrokerAlive;
    this.#respond = respond;
    // Until the watermark is reached, the answer would be a timeout (as Kafka initialises it).
    for (const s of statuses) if (s.acksPending) s.errorCode = ErrorCode.REQUEST_TIMED_OUT;
  }

  tryComplete(): boolean {
    for (const s of this.#statuses) {
      if (!s.acksPending) continue;
      const p = this.#lookup(s.topic, s.partition);
      if (!p?.log) {
        Object.assign(s, { acksPending: false, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, lowWatermark: -1 });
        continue;
      }
      try {
        const lowWatermark = p.lowWatermarkIfLeader(this.#isBrokerAlive);
        if (lowWatermark >= s.requiredOffset) Object.assign(s, { acksPending: false, errorCode: ErrorCode.NONE, lowWatermark });
      } catch (err) {
        Object.assign(s, { acksPending: false, errorCode: err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR, lowWatermark: -1 });
      }
    }
    return this.#statuses.every((s) => !s.acksPending) ? this.forceComplete() : false;
  }

  protected override onExpiration(): void {
    for (const s of this.#statuses) s.acksPending = false;
  }

  protected override onComplete(): void {
    this.#respond(this.#statuses);
  }
}
