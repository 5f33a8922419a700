import { ErrorCode } from '@gregor/common';
import { OFFSETS_TOPIC, type OffsetsTopicLog } from '@gregor/coordinator';
import type { ReplicaManager } from '../cluster/replica-manager.js';

/**
 * The coordinator's view of `__consumer_offsets` on this broker: appends go through the replica manager
 * like a produce with acks=-1 (`offsets.commit.required.acks`), loads read the local leader log.
 */
export class ReplicaOffsetsLog implements OffsetsTopicLog {
  readonly #replicaManager: () => ReplicaManager;
  readonly #commitTimeoutMs: number;

  constructor(replicaManager: () => ReplicaManager, commitTimeoutMs: number) {
    this.#replicaManager = replicaManager;
    this.#commitTimeoutMs = commitTimeoutMs;
  }

  async append(partition: number, records: Buffer): Promise<number> {
    const [status] = await this.#replicaManager().appendRecords(this.#commitTimeoutMs, -1, [{ topic: OFFSETS_TOPIC, partition, records }]);
    return status?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
  }

  read(partition: number, offset: number, maxBytes: number) {
    const log = this.#replicaManager().getPartition(OFFSETS_TOPIC, partition)?.log;
    if (!log) return { records: Buffer.alloc(0), logStartOffset: 0, logEndOffset: 0 };
    const bounds = { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset };
    if (maxBytes <= 0 || offset >= log.logEndOffset) return { records: Buffer.alloc(0), ...bounds };
    const from = Math.max(offset, log.logStartOffset);
    return { records: log.read(from, maxBytes, log.logEndOffset, true).records, ...bounds };
  }
}
