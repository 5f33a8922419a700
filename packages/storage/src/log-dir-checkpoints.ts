import { join } from 'node:path';
import type { Logger } from '@gregor/common';
import { OffsetCheckpointFile, type TopicPartitionOffset } from './checkpoint-file.js';
import type { PartitionLog } from './log.js';

export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const HIGH_WATERMARK_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';

/** A log and the log dir holding it. */
export interface HostedLog {
  log: PartitionLog;
  logDir: string;
}

/** A missing checkpoint means "nothing known"; an unreadable one is treated the same (recovery then scans everything). */
export function readDirCheckpoint(logDir: string, file: string, logger: Logger): Map<string, TopicPartitionOffset> {
  try {
    return new OffsetCheckpointFile(join(logDir, file)).read();
  } catch (err) {
    logger.warn({ err, logDir, file }, 'ignoring unreadable checkpoint file');
    return new Map();
  }
}

/** Writes one checkpoint file of a log dir: `offsetOf` of every log (by partition key) in that dir. */
export function writeDirCheckpoint(logs: ReadonlyMap<string, HostedLog>, logDir: string, file: string, offsetOf: (log: PartitionLog) => number): void {
  new OffsetCheckpointFile(join(logDir, file)).write(dirEntries(logs, logDir, offsetOf));
}

/** The same with the fsync off the event loop (the offsets are taken now). */
export function writeDirCheckpointAsync(logs: ReadonlyMap<string, HostedLog>, logDir: string, file: string, offsetOf: (log: PartitionLog) => number): Promise<void> {
  return new OffsetCheckpointFile(join(logDir, file)).writeAsync(dirEntries(logs, logDir, offsetOf));
}

/** Recovery points, high watermarks and log start offsets of a log dir, written asynchronously. */
export function writeDirCheckpointsAsync(logs: ReadonlyMap<string, HostedLog>, logDir: string): Promise<unknown> {
  return Promise.all([
    writeDirCheckpointAsync(logs, logDir, RECOVERY_POINT_CHECKPOINT_FILE, (log) => log.recoveryPoint),
    writeDirCheckpointAsync(logs, logDir, HIGH_WATERMARK_CHECKPOINT_FILE, (log) => log.highWatermark),
    writeDirCheckpointAsync(logs, logDir, LOG_START_OFFSET_CHECKPOINT_FILE, (log) => log.logStartOffset),
  ]);
}

function dirEntries(logs: ReadonlyMap<string, HostedLog>, logDir: string, offsetOf: (log: PartitionLog) => number): TopicPartitionOffset[] {
  const entries: TopicPartitionOffset[] = [];
  for (const hosted of logs.values()) {
    if (hosted.logDir !== logDir) continue;
    entries.push({ topic: hosted.log.topic, partition: hosted.log.partition, offset: offsetOf(hosted.log) });
  }
  return entries;
}
