import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { open, readdir, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ConfigError, ErrorCode, GregorError, type Logger } from '@gregor/common';
import { fsyncDir, writeCheckpointFileAsync } from './checkpoint-file.js';
import { boundedCheckpointWriter, type CheckpointWriter } from './leader-epoch-cache.js';
import { DELETE_DIR_SUFFIX, partitionDirName } from './file-names.js';
import { PartitionLog } from './log.js';
import { validateLogConfig, type LogConfig } from './log-config.js';
import {
  HIGH_WATERMARK_CHECKPOINT_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
  writeDirCheckpoint,
  writeDirCheckpointAsync,
  writeDirCheckpointsAsync,
  type HostedLog,
} from './log-dir-checkpoints.js';
import { deleteOldSegments, flushDueLogs, removeExpiredProducers } from './log-manager-tasks.js';
import { checkMetaProperties, CLEAN_SHUTDOWN_FILE, loadLogDir, runSliced, type LogDirLoadTarget } from './log-dir-load.js';
import { failureDetectingIo, isStorageFailure, type LogDirFailureChannel } from './log-dir-failure-channel.js';
import { nodeIo, type SegmentIo } from './segment-io.js';

export { CLEAN_SHUTDOWN_FILE, LOAD_SLICE_MS } from './log-dir-load.js';
export { HIGH_WATERMARK_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, RECOVERY_POINT_CHECKPOINT_FILE } from './log-dir-checkpoints.js';

export interface LogManagerOptions {
  /** `log.dirs`: new partitions go to the dir holding the fewest. */
  logDirs: string[];
  defaultConfig: LogConfig;
  logger: Logger;
  brokerId: number;
  /** Checked against (or written to) each dir's meta.properties. */
  clusterId?: string;
  /** `log.retention.check.interval.ms` (Kafka 300000). */
  retentionCheckIntervalMs: number;
  /** How often recovery points, high watermarks and log start offsets are checkpointed (Kafka 60000 / 5000). */
  flushCheckpointIntervalMs: number;
  io?: SegmentIo;
  time?: () => number;
  /** `producer.id.expiration.ms`: idempotent producer state idle this long is dropped (default 86400000). */
  producerIdExpirationMs?: number;
  /** `producer.id.expiration.check.interval.ms`: how often expired producer ids are removed (default 600000). */
  producerIdExpirationCheckIntervalMs?: number;
  /** KIP-112: a storage failure in a log dir is reported here (the dir goes offline, the broker carries on). */
  logDirFailureChannel?: LogDirFailureChannel;
  /** How often logs are checked against their flush.ms (Kafka's log.flush.scheduler.interval.ms); default never. */
  flushCheckIntervalMs?: number;
  /** Writes each log's leader-epoch-checkpoint off the event loop; default writeCheckpointFileAsync, a few at a time; null = on it. */
  leaderEpochCheckpointWriter?: CheckpointWriter | null;
}

const key = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * Kafka's LogManager: owns every partition log under `log.dirs`, loads them at startup (recovering after an
 * unclean stop), runs retention and checkpoints on stoppable timers, and marks a clean shutdown.
 */
export class LogManager {
  readonly logDirs: readonly string[];
  #options: LogManagerOptions;
  #logger: Logger;
  #logs = new Map<string, HostedLog>();
  #timers: NodeJS.Timeout[] = [];
  #clusterId: string | undefined;
  #state: 'new' | 'running' | 'stopped' = 'new';
  readonly #io: SegmentIo | undefined;
  /** Partitions whose log was in a log dir that failed: they stay offline until the broker restarts (KIP-112). */
  readonly #offlinePartitions = new Set<string>();
  readonly #offlineDirs = new Set<string>();
  /** Every log's leader-epoch-checkpoint writes, off the event loop and a few at a time. */
  readonly #epochCheckpointWriter = boundedCheckpointWriter(writeCheckpointFileAsync);
  /** Logs per log dir (the least loaded dir takes a new log). */
  readonly #dirLoad = new Map<string, number>();
  readonly #loadTarget: LogDirLoadTarget;

  constructor(options: LogManagerOptions) {
    if (options.logDirs.length === 0) throw new ConfigError('log.dirs must name at least one directory');
    validateLogConfig(options.defaultConfig);
    this.logDirs = [...options.logDirs];
    this.#options = options;
    this.#logger = options.logger;
    this.#clusterId = options.clusterId;
    const channel = options.logDirFailureChannel;
    this.#io = channel ? failureDetectingIo(options.io ?? nodeIo, (path) => this.#logDirOf(path), channel) : options.io;
    // Logs found on disk at startup join the others, with the default config until LeaderAndIsr brings the topic's.
    this.#loadTarget = {
      logger: this.#logger,
      hosted: (k) => this.#logs.get(k),
      open: (found) => new PartitionLog({ ...found, config: { ...this.#options.defaultConfig }, logger: this.#logger, ...this.#logExtras() }),
      add: (k, hosted) => this.#addLog(k, hosted),
    };
  }

  /** The cluster id given or found in meta.properties. */
  get clusterId(): string | undefined {
    return this.#clusterId;
  }

  /** Loads every log on the event loop in one go (tests, tools); a broker uses startupAsync. */
  startup(): void {
    this.#checkNew();
    for (const logDir of this.logDirs) for (const _ of loadLogDir(logDir, readdirSync(logDir, { withFileTypes: true }), this.#loadTarget));
    this.#startTasks();
  }

  /**
   * Loads every log, giving the event loop a turn at least every LOAD_SLICE_MS (Kafka loads logs on a thread pool):
   * a broker loading thousands of logs keeps answering its ZooKeeper session's heartbeats meanwhile.
   */
  async startupAsync(): Promise<void> {
    this.#checkNew();
    for (const logDir of this.logDirs) {
      const entries = await readdir(logDir, { withFileTypes: true });
      await runSliced(loadLogDir(logDir, entries, this.#loadTarget));
    }
    this.#startTasks();
  }

  #checkNew(): void {
    if (this.#state !== 'new') throw new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, 'log manager already started');
    for (const logDir of this.logDirs) {
      mkdirSync(logDir, { recursive: true });
      this.#clusterId = checkMetaProperties(logDir, this.#options.brokerId, this.#clusterId);
    }
  }

  #startTasks(): void {
    this.#state = 'running';
    const retention = setInterval(() => deleteOldSegments(this.allLogs(), this.#now(), this.#logger), this.#options.retentionCheckIntervalMs);
    const checkpoints = setInterval(() => this.#runCheckpoints(), this.#options.flushCheckpointIntervalMs);
    const producerExpiry = setInterval(() => removeExpiredProducers(this.allLogs(), this.#now(), this.#logger), this.#options.producerIdExpirationCheckIntervalMs ?? 600_000);
    retention.unref();
    checkpoints.unref();
    producerExpiry.unref();
    this.#timers.push(retention, checkpoints, producerExpiry);
    const flushEvery = this.#options.flushCheckIntervalMs;
    if (flushEvery !== undefined && flushEvery < 2 ** 31) {
      const flusher = setInterval(() => this.flushDirtyLogs(), Math.max(1, flushEvery));
      flusher.unref();
      this.#timers.push(flusher);
    }
  }

  /** flush.ms: fsyncs each log whose last flush is older than its flush.ms (Kafka's flushDirtyLogs task). */
  flushDirtyLogs(): number {
    return flushDueLogs(this.allLogs(), this.#now(), this.#logger);
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.#logs.get(key(topic, partition))?.log;
  }

  /** The partition's log, created in the least loaded dir if absent. `config` overrides the defaults (also for an existing log). */
  getOrCreateLog(topic: string, partition: number, config?: Partial<LogConfig>): PartitionLog {
    this.#checkRunning();
    const merged = { ...this.#options.defaultConfig, ...config };
    if (this.#offlinePartitions.has(key(topic, partition))) {
      throw new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, `the log of ${key(topic, partition)} is in an offline log dir`);
    }
    const existing = this.#logs.get(key(topic, partition));
    if (existing) {
      if (config) existing.log.updateConfig(merged);
      return existing.log;
    }
    const name = partitionDirName(topic, partition);
    const logDir = this.#leastLoadedDir();
    const log = new PartitionLog({
      dir: join(logDir, name),
      topic,
      partition,
      config: merged,
      logger: this.#logger,
      hadCleanShutdown: true,
      ...this.#logExtras(),
    });
    this.#addLog(key(topic, partition), { log, logDir });
    this.#logger.info({ topic, partition, dir: log.dir }, 'created log');
    return log;
  }

  /**
   * Creates the logs of many partitions (a LeaderAndIsr making this broker a replica of thousands), giving the event
   * loop a turn at least every LOAD_SLICE_MS, so requests and ZooKeeper heartbeats go on meanwhile. Existing logs are
   * left as they are; a log that cannot be created is skipped (getOrCreateLog reports it to its caller later).
   */
  async createLogs(specs: readonly { topic: string; partition: number; config?: Partial<LogConfig> }[]): Promise<void> {
    const self = this;
    await runSliced(
      (function* () {
        for (const { topic, partition, config } of specs) {
          if (self.#state !== 'running') return;
          if (self.#logs.has(key(topic, partition)) || self.#offlinePartitions.has(key(topic, partition))) continue;
          try {
            self.getOrCreateLog(topic, partition, config);
          } catch (err) {
            self.#logger.warn({ err, topic, partition }, 'creating a log failed');
          }
          yield;
        }
      })(),
    );
  }

  /**
   * Closes the log and renames its dir to `<dir>.<uuid>-delete` at once (so the partition can be created again, and a
   * crash mid-way finishes the job at startup); the directory fsync, the removal of the files and the checkpoints run
   * off the event loop (deleting a topic of many large segments must not stall requests and ZooKeeper heartbeats).
   * The promise settles when all of it is done; failures are logged.
   */
  deleteLog(topic: string, partition: number): Promise<void> {
    const hosted = this.#logs.get(key(topic, partition));
    if (!hosted) return Promise.resolve();
    this.#logs.delete(key(topic, partition));
    this.#dirLoad.set(hosted.logDir, (this.#dirLoad.get(hosted.logDir) ?? 1) - 1);
    hosted.log.close();
    const doomed = `${hosted.log.dir}.${randomUUID().replaceAll('-', '')}${DELETE_DIR_SUFFIX}`;
    renameSync(hosted.log.dir, doomed);
    this.#logger.info({ topic, partition }, 'deleted log');
    return (async () => {
      const dir = await open(hosted.logDir, 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
      await rm(doomed, { recursive: true, force: true });
      await writeDirCheckpointsAsync(this.#logs, hosted.logDir);
    })().catch((err: unknown) => this.#logger.error({ err, topic, partition, dir: doomed }, 'removing a deleted log failed; it is finished at the next startup'));
  }

  /** The partition's log was in a log dir that failed (KIP-112): it is not served until the broker restarts. */
  isPartitionOffline(topic: string, partition: number): boolean {
    return this.#offlinePartitions.has(key(topic, partition));
  }

  isLogDirOnline(logDir: string): boolean {
    return this.logDirs.includes(logDir) && !this.#offlineDirs.has(logDir);
  }

  onlineLogDirs(): string[] {
    return this.logDirs.filter((d) => !this.#offlineDirs.has(d));
  }

  /**
   * Kafka's LogManager.handleLogDirFailure: the dir's logs are closed and forgotten (their partitions are offline
   * from now on), and nothing is written there again. Returns the partitions that were in it.
   */
  handleLogDirFailure(logDir: string): { topic: string; partition: number }[] {
    if (!this.logDirs.includes(logDir) || this.#offlineDirs.has(logDir)) return [];
    this.#offlineDirs.add(logDir);
    const removed: { topic: string; partition: number }[] = [];
    for (const [k, hosted] of this.#logs) {
      if (hosted.logDir !== logDir) continue;
      this.#logs.delete(k);
      this.#dirLoad.delete(logDir);
      this.#offlinePartitions.add(k);
      removed.push({ topic: hosted.log.topic, partition: hosted.log.partition });
      try {
        hosted.log.close();
      } catch (err) {
        this.#logger.warn({ err, topic: hosted.log.topic, partition: hosted.log.partition }, 'closing a log in a failed dir failed');
      }
    }
    this.#logger.error({ logDir, partitions: removed.length }, 'log dir offline: its partitions are no longer served');
    return removed;
  }

  allLogs(): PartitionLog[] {
    return [...this.#logs.values()].map((h) => h.log);
  }

  checkpointHighWatermarks(): void {
    for (const logDir of this.onlineLogDirs()) writeDirCheckpoint(this.#logs, logDir, HIGH_WATERMARK_CHECKPOINT_FILE, (log) => log.highWatermark);
  }

  /** The periodic HW checkpoint, with the fsync off the event loop (a snapshot of the offsets is taken now). */
  async checkpointHighWatermarksAsync(): Promise<void> {
    await Promise.all(this.onlineLogDirs().map((logDir) => writeDirCheckpointAsync(this.#logs, logDir, HIGH_WATERMARK_CHECKPOINT_FILE, (log) => log.highWatermark)));
  }

  checkpointRecoveryPoints(): void {
    for (const logDir of this.onlineLogDirs()) writeDirCheckpoint(this.#logs, logDir, RECOVERY_POINT_CHECKPOINT_FILE, (log) => log.recoveryPoint);
  }

  checkpointLogStartOffsets(): void {
    for (const logDir of this.onlineLogDirs()) writeDirCheckpoint(this.#logs, logDir, LOG_START_OFFSET_CHECKPOINT_FILE, (log) => log.logStartOffset);
  }

  /** The same, with the fsync off the event loop (a follower raising its log start on a fetch response). */
  async checkpointLogStartOffsetsAsync(): Promise<void> {
    await Promise.all(this.onlineLogDirs().map((logDir) => writeDirCheckpointAsync(this.#logs, logDir, LOG_START_OFFSET_CHECKPOINT_FILE, (log) => log.logStartOffset)));
  }

  /** Every log dir (as configured) with the logs it holds (DescribeLogDirs). */
  logsByDir(): Map<string, PartitionLog[]> {
    const out = new Map<string, PartitionLog[]>(this.logDirs.map((d) => [d, []]));
    for (const { log, logDir } of this.#logs.values()) out.get(logDir)?.push(log);
    return out;
  }

  /** Waits for the leader-epoch-checkpoint writes in flight, so that `shutdown` can mark every dir clean. */
  async awaitLeaderEpochCheckpoints(): Promise<void> {
    await Promise.all(this.allLogs().map((log) => log.leaderEpochCache.whenIdle()));
  }

  /**
   * Stops the tasks, flushes and closes every log, writes the checkpoints and the clean-shutdown marker (not in a dir
   * with a leader-epoch-checkpoint write still in flight: call awaitLeaderEpochCheckpoints first).
   */
  shutdown(): void {
    if (this.#state !== 'running') return;
    this.#state = 'stopped';
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    const failedDirs = new Set<string>();
    for (const { log, logDir } of this.#logs.values()) {
      try {
        // The leader epochs go first, so that the flush can move the recovery point to the LEO.
        if (!log.leaderEpochCache.flushSyncIfIdle()) {
          // A background write is still in flight: without the clean-shutdown marker, the next start rescans the
          // log from its recovery point, which stayed below the epochs that write carries.
          failedDirs.add(logDir);
          this.#logger.info({ topic: log.topic, partition: log.partition }, 'leader-epoch-checkpoint write in flight at shutdown; the next start recovers this dir');
        }
        log.flush();
      } catch (err) {
        failedDirs.add(logDir);
        this.#logger.error({ err, topic: log.topic, partition: log.partition }, 'flush at shutdown failed');
      }
    }
    this.checkpointRecoveryPoints();
    this.checkpointHighWatermarks();
    this.checkpointLogStartOffsets();
    for (const { log } of this.#logs.values()) log.close();
    for (const logDir of this.onlineLogDirs()) {
      if (failedDirs.has(logDir)) continue;
      writeFileSync(join(logDir, CLEAN_SHUTDOWN_FILE), '');
      fsyncDir(logDir);
    }
    this.#logger.info({ logs: this.#logs.size }, 'log manager shut down cleanly');
  }

  #addLog(k: string, hosted: HostedLog): void {
    this.#logs.set(k, hosted);
    this.#dirLoad.set(hosted.logDir, (this.#dirLoad.get(hosted.logDir) ?? 0) + 1);
  }

  #checkRunning(): void {
    if (this.#state !== 'running') throw new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, `log manager is ${this.#state === 'new' ? 'not started' : 'shut down'}`);
  }

  #logExtras(): { io?: SegmentIo; time?: () => number; producerIdExpirationMs?: number; leaderEpochCheckpointWriter: CheckpointWriter | null } {
    return {
      leaderEpochCheckpointWriter: this.#options.leaderEpochCheckpointWriter === undefined ? this.#epochCheckpointWriter : this.#options.leaderEpochCheckpointWriter,
      ...(this.#io ? { io: this.#io } : {}),
      ...(this.#options.time ? { time: this.#options.time } : {}),
      ...(this.#options.producerIdExpirationMs !== undefined ? { producerIdExpirationMs: this.#options.producerIdExpirationMs } : {}),
    };
  }

  /** The online dir holding the fewest logs (a failed dir takes no new ones). */
  #leastLoadedDir(): string {
    const online = this.onlineLogDirs();
    if (online.length === 0) throw new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, 'every log dir is offline');
    // Counted as logs come and go: creating thousands of logs must not rescan every log each time.
    const count = (d: string) => this.#dirLoad.get(d) ?? 0;
    let best = online[0]!;
    for (const d of online) if (count(d) < count(best)) best = d;
    return best;
  }

  /** The configured log dir a file lies under. */
  #logDirOf(path: string): string | undefined {
    const file = resolve(path);
    return this.logDirs.find((d) => file.startsWith(resolve(d) + sep));
  }

  #now(): number {
    return (this.#options.time ?? Date.now)();
  }

  /** Periodic: the three checkpoints, written asynchronously so no fsync blocks request handling. */
  #runCheckpoints(): void {
    for (const logDir of this.onlineLogDirs()) {
      writeDirCheckpointsAsync(this.#logs, logDir).catch((err) => {
        this.#logger.error({ err, logDir }, 'writing checkpoints failed');
        if (isStorageFailure(err)) this.#options.logDirFailureChannel?.maybeAddOfflineLogDir(logDir, 'writing checkpoints failed', err);
      });
    }
  }
}
