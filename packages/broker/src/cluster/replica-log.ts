import type { LeaderEpochCache, LogConfig, PartitionLog } from '@gregor/storage';

/** What replication uses of a partition's log: PartitionLog is one; unit tests use an in-memory one. */
export type ReplicaLog = Pick<
  PartitionLog,
  | 'topic'
  | 'partition'
  | 'highWatermark'
  | 'logStartOffset'
  | 'logEndOffset'
  | 'appendAsLeader'
  | 'appendAsFollower'
  | 'read'
  | 'truncateTo'
  | 'truncateFullyAndStartAt'
  | 'maybeIncrementLogStartOffset'
  | 'updateHighWatermark'
  | 'maybeIncrementHighWatermark'
  | 'config'
> & {
  readonly leaderEpochCache: Pick<LeaderEpochCache, 'assign' | 'latestEpoch' | 'endOffsetFor'>;
};

/** What the replica manager uses of the log manager (LogManager is one). */
export interface ReplicaLogManager<L extends ReplicaLog> {
  getOrCreateLog(topic: string, partition: number, config?: Partial<LogConfig>): L;
  /** Creates many logs letting the event loop turn between them (LogManager); without it getOrCreateLog creates each. */
  createLogs?(specs: readonly { topic: string; partition: number; config?: Partial<LogConfig> }[]): Promise<void>;
  deleteLog(topic: string, partition: number): void;
  checkpointLogStartOffsets(): void;
  checkpointLogStartOffsetsAsync(): Promise<void>;
  /** KIP-112: the partition's log dir failed; it is not served until the broker restarts. */
  isPartitionOffline(topic: string, partition: number): boolean;
}
