import type { Logger } from '@gregor/common';
import type { LogDirFailureChannel, LogManager } from '@gregor/storage';
import type { ReplicaManager } from './replica-manager.js';

export interface LogDirFailureHandlerOptions {
  channel: LogDirFailureChannel;
  logManager: LogManager;
  replicaManager: ReplicaManager;
  /** Creates /log_dir_event_notification/log_dir_event_<seq> naming this broker (KafkaZkClient.propagateLogDirEvent). */
  propagateLogDirEvent: () => Promise<unknown>;
  /** Every log dir failed: Kafka halts the broker, so that the controller moves all its leadership at once. */
  onAllLogDirsOffline: () => void;
  logger: Logger;
  /** Backoff of a failed ZooKeeper notification, retried until it is written or the handler stops. */
  retryBackoffMs?: number;
}

/**
 * Kafka's ReplicaManager.handleLogDirFailure (KIP-112), run for each dir the LogDirFailureChannel takes offline:
 * the dir's partitions stop being served (no fetchers, no leadership: clients get KAFKA_STORAGE_ERROR), the
 * log manager forgets them, and the controller is told through ZooKeeper. It then sends LeaderAndIsr; this broker
 * answers KAFKA_STORAGE_ERROR for those partitions and the controller elects leaders among the other in-sync
 * replicas. Partitions in the other dirs are served as before.
 */
export class LogDirFailureHandler {
  readonly #opts: LogDirFailureHandlerOptions;
  readonly #log: Logger;
  #stopped = false;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Dirs whose notification is still to be written (one node per failed dir, as Kafka). */
  #pendingNotifications = 0;
  #notifying = false;

  constructor(opts: LogDirFailureHandlerOptions) {
    this.#opts = opts;
    this.#log = opts.logger;
  }

  start(): void {
    this.#opts.channel.onOfflineLogDir((dir) => {
      if (!this.#stopped) this.#handle(dir);
    });
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
  }

  #handle(dir: string): void {
    const { logManager, replicaManager } = this.#opts;
    if (!logManager.isLogDirOnline(dir)) return;
    this.#log.error({ logDir: dir }, 'stopping serving replicas in a failed log dir');
    const offline = logManager.handleLogDirFailure(dir);
    // As StopReplica without delete: fetchers removed, leadership given up, waiting requests answered; the group
    // coordinator unloads any __consumer_offsets partition that was there.
    if (offline.length > 0) replicaManager.stopReplicas(replicaManager.controllerEpoch, false, offline);
    this.#log.error({ logDir: dir, partitions: offline.map((tp) => `${tp.topic}-${tp.partition}`) }, 'stopped serving replicas in the failed log dir');
    if (logManager.onlineLogDirs().length === 0) {
      this.#log.fatal({ logDirs: logManager.logDirs }, 'all log dirs have failed: halting the broker');
      this.#opts.onAllLogDirsOffline();
      return;
    }
    this.#pendingNotifications++;
    void this.#notify();
  }

  async #notify(): Promise<void> {
    if (this.#notifying) return;
    this.#notifying = true;
    try {
      while (this.#pendingNotifications > 0 && !this.#stopped) {
        try {
          await this.#opts.propagateLogDirEvent();
          this.#pendingNotifications--;
        } catch (err) {
          this.#log.warn({ err }, 'writing the log dir event notification failed; retrying');
          await new Promise<void>((resolve) => {
            this.#retryTimer = setTimeout(resolve, this.#opts.retryBackoffMs ?? 1000);
          });
        }
      }
    } finally {
      this.#notifying = false;
    }
  }
}
