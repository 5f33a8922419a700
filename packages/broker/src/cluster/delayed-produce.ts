import { ErrorCode } from '@gregor/common';
import { DelayedOperation } from '../purgatory/delayed-operation.js';
import type { Partition } from './partition.js';
import type { ReplicaLog } from './replica-log.js';

export interface ProducePartitionStatus {
  topic: string;
  partition: number;
  errorCode: number;
  baseOffset: number;
  logAppendTimeMs: number;
  logStartOffset: number;
  /** last offset + 1: acks=all completes once the high watermark reaches it */
  requiredOffset: number;
  /** still waiting for replication */
  acksPending: boolean;
  /** Record validation's refused records (KIP-467), when Kafka names them. */
  recordErrors?: { batchIndex: number; message: string | null }[];
  /** Record validation's message for the partition (Produce v8+). */
  errorMessage?: string | null;
}

/** acks=all: the response waits until every ISR member has the batch (HW >= requiredOffset) or the timeout. */
export class DelayedProduce extends DelayedOperation {
  readonly #statuses: ProducePartitionStatus[];
  readonly #lookup: (topic: string, partition: number) => Partition<ReplicaLog> | undefined;
  readonly #minIsr: (topic: string) => number;
  readonly #respond: (statuses: ProducePartitionStatus[]) => void;

  constructor(
    timeoutMs: number,
    statuses: ProducePartitionStatus[],
    lookup: (topic: string, partition: number) => Partition<ReplicaLog> | undefined,
    minIsr: (topic: string) => number,
    respond: (statuses: ProducePartitionStatus[]) => void,
  ) {
    super(timeoutMs);
    this.#statuses = statuses;
    this.#lookup = lookup;
    this.#minIsr = minIsr;
    this.#respond = respond;
  }

  tryComplete(): boolean {
    for (const s of this.#statuses) {
      if (!s.acksPending) continue;
      const p = this.#lookup(s.topic, s.partition);
      if (!p) {
        s.acksPending = false;
        s.errorCode = ErrorCode.NOT_LEADER_FOR_PARTITION;
        continue;
      }
      const r = p.checkEnoughReplicasReachOffset(s.requiredOffset, this.#minIsr(s.topic));
      if (r.done) {
        s.acksPending = false;
        s.errorCode = r.errorCode;
      }
    }
    return this.#statuses.every((s) => !s.acksPending) ? this.forceComplete() : false;
  }

  protected override onExpiration(): void {
    for (const s of this.#statuses) {
      if (s.acksPending) {
        s.acksPending = false;
        s.errorCode = ErrorCode.REQUEST_TIMED_OUT;
      }
    }
  }

  protected override onComplete(): void {
    this.#respond(this.#statuses);
  }
}
