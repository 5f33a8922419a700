import { existsSync, rmSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Logger } from '@gregor/common';
import { DELETE_DIR_SUFFIX, parseTopicPartitionDir } from './file-names.js';
import type { PartitionLog } from './log.js';
import { HIGH_WATERMARK_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, readDirCheckpoint, RECOVERY_POINT_CHECKPOINT_FILE, type HostedLog } from './log-dir-checkpoints.js';
import { readMetaProperties, writeMetaProperties } from './meta-properties.js';

export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

/** Work on the event loop between two turns given to everything else (loading or creating many logs). */
export const LOAD_SLICE_MS = 10;

/** Runs `steps` to the end, giving the event loop a turn whenever a slice of LOAD_SLICE_MS is used up. */
export async function runSliced(steps: Generator<void, void>): Promise<void> {
  let sliceStart = performance.now();
  for (;;) {
    if (steps.next().done) return;
    if (performance.now() - sliceStart >= LOAD_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/**
 * Checks a log dir's meta.properties against this broker (and the cluster id known so far), or writes it. Returns
 * the cluster id: the one given, else the one found.
 */
export function checkMetaProperties(logDir: string, brokerId: number, clusterId: string | undefined): string | undefined {
  const meta = readMetaProperties(logDir);
  if (meta) {
    if (meta.brokerId !== brokerId) {
      throw new ConfigError(`${logDir} belongs to broker.id ${meta.brokerId}, not ${brokerId}`);
    }
    if (meta.clusterId && clusterId && meta.clusterId !== clusterId) {
      throw new ConfigError(`${logDir} belongs to cluster ${meta.clusterId}, not ${clusterId}`);
    }
    clusterId ??= meta.clusterId;
    if (meta.clusterId || !clusterId) return clusterId;
  }
  writeMetaProperties(logDir, clusterId ? { brokerId, clusterId } : { brokerId });
  return clusterId;
}

/** A log found on disk, with what the dir's checkpoints say of it. */
export interface FoundLog {
  dir: string;
  topic: string;
  partition: number;
  recoveryPoint: number;
  logStartOffset: number | undefined;
  hadCleanShutdown: boolean;
}

/** What loading a log dir uses of the LogManager. */
export interface LogDirLoadTarget {
  logger: Logger;
  /** The log hosted under `key` already (a partition in two dirs is a configuration error). */
  hosted(key: string): HostedLog | undefined;
  open(found: FoundLog): PartitionLog;
  add(key: string, hosted: HostedLog): void;
}

/**
 * Loads the logs of one dir (Kafka's LogManager.loadLogs for one dir): finishes deletions a crash interrupted, opens
 * each `<topic>-<partition>` dir with its checkpointed recovery point, log start and HW, and removes the
 * clean-shutdown marker at the end. Yields after each log (the caller decides when the event loop gets a turn).
 */
export function* loadLogDir(logDir: string, entries: readonly Dirent[], target: LogDirLoadTarget): Generator<void, void> {
  const logger = target.logger;
  const started = Date.now();
  const marker = join(logDir, CLEAN_SHUTDOWN_FILE);
  const hadCleanShutdown = existsSync(marker);
  const recoveryPoints = readDirCheckpoint(logDir, RECOVERY_POINT_CHECKPOINT_FILE, logger);
  const logStartOffsets = readDirCheckpoint(logDir, LOG_START_OFFSET_CHECKPOINT_FILE, logger);
  const highWatermarks = readDirCheckpoint(logDir, HIGH_WATERMARK_CHECKPOINT_FILE, logger);
  let loaded = 0;
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(logDir, entry.name);
    if (entry.name.endsWith(DELETE_DIR_SUFFIX)) {
      rmSync(path, { recursive: true, force: true });
      continue;
    }
    const tp = parseTopicPartitionDir(entry.name);
    if (!tp) {
      logger.warn({ dir: path }, 'skipping a directory that is not <topic>-<partition>');
      continue;
    }
    const k = `${tp.topic}-${tp.partition}`;
    const duplicate = target.hosted(k);
    if (duplicate) throw new ConfigError(`partition ${k} found in both ${duplicate.logDir} and ${logDir}`);
    const log = target.open({
      dir: path,
      topic: tp.topic,
      partition: tp.partition,
      recoveryPoint: recoveryPoints.get(k)?.offset ?? 0,
      logStartOffset: logStartOffsets.get(k)?.offset,
      hadCleanShutdown,
    });
    const hw = highWatermarks.get(k)?.offset;
    if (hw !== undefined) log.updateHighWatermark(hw);
    target.add(k, { log, logDir });
    loaded++;
    yield;
  }
  // Removed only after every log is loaded: a crash during loading must recover again next time.
  if (hadCleanShutdown) rmSync(marker, { force: true });
  logger.info({ logDir, logs: loaded, hadCleanShutdown, ms: Date.now() - started }, 'loaded logs');
}
