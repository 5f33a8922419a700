import type { Logger } from '@gregor/common';
import type { CheckpointWriter } from './leader-epoch-cache.js';
import type { LogConfig } from './log-config.js';
import type { SegmentIo } from './segment-io.js';

export interface PartitionLogOptions {
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  logger: Logger;
  /** Offsets below this are known flushed; recovery after an unclean stop starts at its segment. Default 0. */
  recoveryPoint?: number;
  /** From `log-start-offset-checkpoint`; default the first segment's base offset. */
  logStartOffset?: number;
  /** True when the log dir had `.kafka_cleanshutdown`: skip the recovery scan. */
  hadCleanShutdown?: boolean;
  /** File-call seam (tests inject failures); default node:fs. */
  io?: SegmentIo;
  /** Wall clock, default Date.now. */
  time?: () => number;
  /** `producer.id.expiration.ms`: producer state idle this long is dropped. Default 1 day. */
  producerIdExpirationMs?: number;
  /** Writes `leader-epoch-checkpoint` off the event loop (LogManager passes writeCheckpointFileAsync); default on it. */
  leaderEpochCheckpointWriter?: CheckpointWriter | null;
}

export interface LeaderAppendInfo {
  firstOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  /** The leader's clock stamped into the batches for LogAppendTime topics, else -1 (a duplicate: its batch's timestamp). */
  logAppendTimeMs: number;
  /** A retried idempotent batch already in the log: nothing was appended, the offsets are the original ones. */
  duplicate: boolean;
}
