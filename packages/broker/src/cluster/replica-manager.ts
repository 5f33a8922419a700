import { ErrorCode, GregorError, type Logger } from '@gregor/common';
import type { LogConfig, LogManager, PartitionLog } from '@gregor/storage';
import { DelayedOperationPurgatory } from '../purgatory/delayed-operation.js';
import { ReplicaFetcherManager, type LeaderEndpoint, type ReplicaFetcherConfig } from '../replication/replica-fetcher-manager.js';
import { DelayedDeleteRecords, type DeleteRecordsPartitionStatus } from './delayed-delete-records.js';
import { DelayedFetch } from './delayed-fetch.js';
import { DelayedProduce, type ProducePartitionStatus } from './delayed-produce.js';
import type { IsrWriter } from './isr-writer.js';
import { Partition, partitionKey, type LeadershipState } from './partition.js';
import type { ReplicaLog, ReplicaLogManager } from './replica-log.js';
import { appendToLocalLog, deleteRecordsOnLocalLog, type DeleteRecordsEntry, type LocalWriteContext, type ProduceEntry } from './replica-local-writes.js';
import { readFromLocalLogs, updateFollowerFetchState, type FetchParams, type FetchPartitionData, type FetchReadResult } from './replica-fetch-reads.js';

export type { FetchParams, FetchPartitionData, FetchPartitionRequest } from './replica-fetch-reads.js';
export type { DeleteRecordsEntry, ProduceEntry } from './replica-local-writes.js';

export interface PartitionLeadershipRequest extends LeadershipState {
  topic: string;
  partition: number;
  isNew: boolean;
}

/** group coordinator: partitions this broker now leads, follows, or stopped hosting. */
export interface LeadershipChange {
  leaders: readonly { topic: string; partition: number }[];
  followers: readonly { topic: string; partition: number }[];
}

export interface ReplicaManagerOptions<L extends ReplicaLog = PartitionLog, M extends ReplicaLogManager<L> = ReplicaLogManager<L> & LogManager> {
  brokerId: number;
  logManager: M;
  logger: Logger;
  /** min.insync.replicas of a topic (its override or the broker default). */
  minInsyncReplicas: (topic: string) => number;
  /** Per-topic log overrides read from /config/topics/<t>. */
  topicLogConfig: (topic: string) => Partial<LogConfig>;
  messageMaxBytes: (topic: string) => number;
  fetcher: ReplicaFetcherConfig;
  replicaLagTimeMaxMs: number;
  /** Where a leader is reached (inter-broker listener), from the metadata cache. */
  leaderEndpoint: (brokerId: number) => LeaderEndpoint | undefined;
  /** Writes the leaders' ISR changes (IsrManager). */
  isrManager: IsrWriter;
  /** Live brokers per the metadata cache: only their replicas hold back a DeleteRecords (default: all). */
  isBrokerAlive?: (brokerId: number) => boolean;
  /** False for a compact-only topic (`cleanup.policy` without delete): DeleteRecords is a POLICY_VIOLATION. */
  deleteRecordsAllowed?: (topic: string) => boolean;
}

/**
 * The partitions this broker hosts and every read and write of them (Kafka's ReplicaManager).
 * Leadership changes arrive from the controller (LeaderAndIsr, StopReplica), writes from Produce,
 * reads from Fetch; acks=all produce and long-poll fetch park in purgatories keyed by partition.
 */
export class ReplicaManager<L extends ReplicaLog = PartitionLog, M extends ReplicaLogManager<L> = ReplicaLogManager<L> & LogManager> {
  readonly #opts: ReplicaManagerOptions<L, M>;
  readonly #log: Logger;
  readonly #partitions = new Map<string, Partition<L>>();
  readonly producePurgatory = new DelayedOperationPurgatory<DelayedProduce>('Produce');
  readonly fetchPurgatory = new DelayedOperationPurgatory<DelayedFetch<FetchReadResult>>('Fetch');
  readonly deleteRecordsPurgatory = new DelayedOperationPurgatory<DelayedDeleteRecords>('DeleteRecords');
  controllerEpoch = 0;
  readonly fetcherManager: ReplicaFetcherManager;
  #isrTimer: NodeJS.Timeout | undefined;
  #stateChangeTail: Promise<void> = Promise.resolve();
  /** group coordinator: told after each LeaderAndIsr / StopReplica (loads and unloads __consumer_offsets partitions). */
  readonly leadershipListeners: ((change: LeadershipChange) => void)[] = [];
  readonly #isBrokerAlive = (id: number): boolean => this.#opts.isBrokerAlive?.(id) ?? true;
  readonly #writes: LocalWriteContext<L>;
  /** Told of every leader append a client made (Produce, the admin's record route): bytes and records, per topic. */
  readonly appendObservers = new Set<(topic: string, bytes: number, records: number) => void>();

  constructor(opts: ReplicaManagerOptions<L, M>) {
    this.#opts = opts;
    this.#log = opts.logger;
    this.fetcherManager = new ReplicaFetcherManager(
      opts.fetcher,
      opts.logger,
      (t, p) => this.getPartition(t, p),
      (p) => this.fetchPurgatory.checkAndComplete(p.key),
      // A follower followed its leader's log start: make it durable (as DeleteRecords on the leader does).
      () => void this.#opts.logManager.checkpointLogStartOffsetsAsync().catch((err) => this.#log.error({ err }, 'log start offset checkpoint failed')),
    );
    this.#writes = {
      leaderPartitionOrError: (t, p) => this.leaderPartitionOrError(t, p),
      minInsyncReplicas: (t) => opts.minInsyncReplicas(t),
      deleteRecordsAllowed: (t) => opts.deleteRecordsAllowed?.(t) ?? true,
      isBrokerAlive: this.#isBrokerAlive,
      onLogChanged: (key) => void this.fetchPurgatory.checkAndComplete(key),
      onAppended: (topic, bytes, records) => {
        for (const observe of this.appendObservers) observe(topic, bytes, records);
      },
      logger: this.#log,
    };
  }

  /** Starts the ISR shrink check (every replica.lag.time.max.ms / 2, as Kafka). */
  startup(): void {
    this.#isrTimer = setInterval(() => this.maybeShrinkIsr(), Math.max(50, Math.floor(this.#opts.replicaLagTimeMaxMs / 2)));
    this.#isrTimer.unref();
  }

  /** Kafka's maybeShrinkIsr task; each partition starts its own ISR write and re-checks its waiters when it returns. */
  maybeShrinkIsr(nowMs = Date.now()): void {
    for (const p of this.#partitions.values()) p.maybeShrinkIsr(nowMs);
  }

  /** The logs under log.dirs (DescribeLogDirs reads them per dir). */
  get logManager(): M {
    return this.#opts.logManager;
  }

  getPartition(topic: string, partition: number): Partition<L> | undefined {
    return this.#partitions.get(partitionKey(topic, partition));
  }

  allPartitions(): Partition<L>[] {
    return [...this.#partitions.values()];
  }

  /** A partition's HW, ISR or leadership moved (Partition tells): its waiting requests re-check. */
  readonly #onPartitionStateChange = (key: string): void => {
    this.producePurgatory.checkAndComplete(key);
    this.fetchPurgatory.checkAndComplete(key);
    this.deleteRecordsPurgatory.checkAndComplete(key);
  };

  #newPartition(topic: string, partition: number): Partition<L> {
    return new Partition<L>(topic, partition, {
      localBrokerId: this.#opts.brokerId,
      replicaLagTimeMaxMs: this.#opts.replicaLagTimeMaxMs,
      isrWriter: this.#opts.isrManager,
      onStateChange: this.#onPartitionStateChange,
      isBrokerAlive: (id) => this.#isBrokerAlive(id),
      logger: this.#log,
    });
  }

  leaderPartitionOrError(topic: string, partition: number): Partition<L> {
    // KIP-112: a partition in a failed log dir is not served (clients refresh metadata and find the new leader).
    if (this.#opts.logManager.isPartitionOffline(topic, partition)) throw new GregorError(ErrorCode.KAFKA_STORAGE_ERROR, `${topic}-${partition} is in an offline log dir`);
    const p = this.getPartition(topic, partition);
    if (!p || !p.log) throw new GregorError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown partition ${topic}-${partition}`);
    if (!p.isLeader) throw new GregorError(ErrorCode.NOT_LEADER_FOR_PARTITION, `broker ${this.#opts.brokerId} is not the leader of ${p.key}`);
    return p;
  }

  /**
   * Kafka's replicaStateChangeLock: LeaderAndIsr and StopReplica are applied one at a time, in the order they arrived,
   * even when one waits (for topic configs, or while it creates logs): the controller's requests must not interleave.
   */
  stateChange<T>(apply: () => Promise<T> | T): Promise<T> {
    const run = this.#stateChangeTail.then(apply);
    this.#stateChangeTail = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /**
   * Creates the logs a LeaderAndIsr needs that do not exist yet, letting the event loop turn between them (thousands
   * of new logs at once must not block ZooKeeper heartbeats); becomeLeaderOrFollower then finds them.
   */
  async createLogsFor(states: readonly PartitionLeadershipRequest[]): Promise<void> {
    const createLogs = this.#opts.logManager.createLogs?.bind(this.#opts.logManager);
    if (!createLogs) return;
    const missing = states.filter(
      (s) => s.replicas.includes(this.#opts.brokerId) && !this.getPartition(s.topic, s.partition)?.log && !this.#opts.logManager.isPartitionOffline(s.topic, s.partition),
    );
    if (missing.length === 0) return;
    await createLogs(missing.map((s) => ({ topic: s.topic, partition: s.partition, config: this.#opts.topicLogConfig(s.topic) })));
  }

  /** LeaderAndIsr: the controller decided who leads. Returns an error code per partition. */
  becomeLeaderOrFollower(
    controllerId: number,
    controllerEpoch: number,
    states: PartitionLeadershipRequest[],
    liveLeaders: LeaderEndpoint[] = [],
  ) {
    if (controllerEpoch < this.controllerEpoch) {
      this.#log.warn({ controllerId, controllerEpoch, current: this.controllerEpoch }, 'ignoring LeaderAndIsr from a stale controller epoch');
      return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH, partitionErrors: [] as { topic: string; partition: number; errorCode: number }[] };
    }
    this.controllerEpoch = controllerEpoch;
    const partitionErrors: { topic: string; partition: number; errorCode: number }[] = [];
    const newFollowers: Partition<L>[] = [];
    const newLeaders: Partition<L>[] = [];
    const now = Date.now();
    const started = performance.now();
    let becameLeader = 0;
    for (const s of states) {
      const key = partitionKey(s.topic, s.partition);
      let p = this.#partitions.get(key);
      if (this.#opts.logManager.isPartitionOffline(s.topic, s.partition)) {
        // KIP-112: before the epoch check, as Kafka's HostedPartition.Offline: the controller takes this replica offline.
        partitionErrors.push({ topic: s.topic, partition: s.partition, errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
        continue;
      }
      if (p && s.leaderEpoch <= p.leaderEpoch && p.log) {
        // An equal or older leader epoch was already applied: Kafka reports it as stale.
        partitionErrors.push({ topic: s.topic, partition: s.partition, errorCode: ErrorCode.STALE_CONTROLLER_EPOCH });
        continue;
      }
      if (!s.replicas.includes(this.#opts.brokerId)) {
        partitionErrors.push({ topic: s.topic, partition: s.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
        continue;
      }
      try {
        if (!p) this.#partitions.set(key, (p = this.#newPartition(s.topic, s.partition)));
        const log = this.#opts.logManager.getOrCreateLog(s.topic, s.partition, this.#opts.topicLogConfig(s.topic));
        if (s.leader === this.#opts.brokerId) {
          if (p.makeLeader(s, log, now)) {
            becameLeader++;
            if (states.length <= PER_PARTITION_LOG_LINES) this.#log.info({ partition: key, leaderEpoch: s.leaderEpoch, isr: s.isr }, 'became leader');
          }
          newLeaders.push(p);
        } else if (p.makeFollower(s, log)) {
          newFollowers.push(p);
          if (states.length <= PER_PARTITION_LOG_LINES) this.#log.info({ partition: key, leader: s.leader, leaderEpoch: s.leaderEpoch }, 'became follower');
        }
        // Waiting requests saw the new leadership through the partition (a deposed leader answers NOT_LEADER).
        partitionErrors.push({ topic: s.topic, partition: s.partition, errorCode: ErrorCode.NONE });
      } catch (err) {
        const code = err instanceof GregorError ? err.code : ErrorCode.KAFKA_STORAGE_ERROR;
        this.#log.error({ err, partition: key }, 'failed to apply leadership');
        partitionErrors.push({ topic: s.topic, partition: s.partition, errorCode: code });
      }
    }
    // Leaders stop fetching; followers (re)start from their new leader, truncating first.
    if (newLeaders.length > 0) this.fetcherManager.removeFetcherForPartitions(newLeaders);
    if (newFollowers.length > 0) {
      this.fetcherManager.removeFetcherForPartitions(newFollowers);
      const byLeader = new Map<number, Partition<L>[]>();
      for (const p of newFollowers) {
        if (p.leaderReplicaId < 0) continue;
        let l = byLeader.get(p.leaderReplicaId);
        if (!l) byLeader.set(p.leaderReplicaId, (l = []));
        l.push(p);
      }
      for (const [leaderId, parts] of byLeader) {
        const endpoint = liveLeaders.find((l) => l.brokerId === leaderId) ?? this.#opts.leaderEndpoint(leaderId);
        if (!endpoint) {
          this.#log.warn({ leader: leaderId, partitions: parts.length }, 'leader endpoint unknown; cannot follow yet');
          continue;
        }
        this.fetcherManager.addFetcherForPartitions(endpoint, parts);
      }
    }
    void this.fetcherManager.shutdownIdleFetcherThreads();
    for (const listener of this.leadershipListeners) listener({ leaders: newLeaders, followers: newFollowers }); // group coordinator
    // One line for a large request (a line per partition costs more than applying it); small ones log each above.
    if (states.length > PER_PARTITION_LOG_LINES) {
      this.#log.info(
        { controllerId, controllerEpoch, partitions: states.length, becameLeader, becameFollower: newFollowers.length, ms: Math.round(performance.now() - started) },
        'applied LeaderAndIsr',
      );
    }
    return { errorCode: ErrorCode.NONE, partitionErrors };
  }

  /** StopReplica: stop serving these partitions; delete their logs when asked (topic deletion). */
  stopReplicas(controllerEpoch: number, deletePartitions: boolean, partitions: { topic: string; partition: number }[]) {
    if (controllerEpoch < this.controllerEpoch) return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH, partitionErrors: [] };
    this.controllerEpoch = controllerEpoch;
    this.fetcherManager.removeFetcherForPartitions(partitions);
    const partitionErrors = partitions.map(({ topic, partition }) => {
      const key = partitionKey(topic, partition);
      this.#partitions.get(key)?.stopReplica(); // waiting requests answer NOT_LEADER
      if (deletePartitions) {
        this.#partitions.delete(key);
        try {
          this.#opts.logManager.deleteLog(topic, partition);
        } catch (err) {
          this.#log.error({ err, partition: key }, 'failed to delete log');
          return { topic, partition, errorCode: ErrorCode.KAFKA_STORAGE_ERROR };
        }
      }
      return { topic, partition, errorCode: ErrorCode.NONE };
    });
    for (const listener of this.leadershipListeners) listener({ leaders: [], followers: partitions }); // group coordinator
    return { errorCode: ErrorCode.NONE, partitionErrors };
  }

  /**
   * Appends to the leader logs, then answers at once (acks 0/1) or when the ISR has the data (acks=all).
   * A failure of one partition never affects the others.
   */
  appendRecords(timeoutMs: number, requiredAcks: number, entries: ProduceEntry[]): Promise<ProducePartitionStatus[]> {
    const statuses: ProducePartitionStatus[] = entries.map((e) => appendToLocalLog(this.#writes, e, requiredAcks));
    const pending = statuses.filter((s) => s.errorCode === ErrorCode.NONE && requiredAcks === -1);
    if (pending.length === 0) return Promise.resolve(statuses);
    for (const s of pending) s.acksPending = true;
    return new Promise((resolve) => {
      const op = new DelayedProduce(timeoutMs, statuses, (t, p) => this.getPartition(t, p), this.#opts.minInsyncReplicas, resolve);
      this.producePurgatory.tryCompleteElseWatch(op, pending.map((s) => partitionKey(s.topic, s.partition)));
    });
  }

  /**
   * DeleteRecords (Kafka's ReplicaManager.deleteRecords): each leader raises its log start offset (deleting whole
   * segments below it, checkpointing the new start), then the answer waits until the low watermark — the smallest
   * log start of the leader and its live followers, which follow from fetch responses — reaches the offset.
   */
  deleteRecords(timeoutMs: number, entries: DeleteRecordsEntry[]): Promise<DeleteRecordsPartitionStatus[]> {
    const statuses = entries.map((e) => deleteRecordsOnLocalLog(this.#writes, e));
    if (statuses.some((s) => s.errorCode === ErrorCode.NONE && s.requiredOffset >= 0)) {
      try {
        this.#opts.logManager.checkpointLogStartOffsets();
      } catch (err) {
        this.#log.error({ err }, 'log start offset checkpoint failed after DeleteRecords');
      }
    }
    const pending = statuses.filter((s) => s.acksPending);
    if (pending.length === 0) return Promise.resolve(statuses);
    return new Promise((resolve) => {
      const op = new DelayedDeleteRecords(timeoutMs, statuses, (t, p) => this.getPartition(t, p), this.#isBrokerAlive, resolve);
      this.deleteRecordsPurgatory.tryCompleteElseWatch(op, pending.map((s) => partitionKey(s.topic, s.partition)));
    });
  }

  /**
   * Reads for a consumer (up to the HW) or a follower (up to the LEO), waiting up to maxWaitMs for minBytes. A
   * follower's fetch offset is recorded only for partitions read without error (Kafka's updateFollowerFetchState
   * after readFromLocalLog): a fenced epoch or an offset outside the log never counts toward the HW or the ISR.
   */
  fetchMessages(params: FetchParams): Promise<FetchPartitionData[]> {
    const isFollower = params.replicaId >= 0;
    const readAll = (): FetchReadResult => readFromLocalLogs(this, params, isFollower, this.#log);
    const first = readAll();
    if (isFollower) updateFollowerFetchState(this, params, first.partitions, this.#onFollowerFetched, this.#log);
    if (params.maxWaitMs <= 0 || first.mustReturn || first.bytes >= params.minBytes || params.partitions.length === 0) {
      return Promise.resolve(first.partitions);
    }
    const pool = params.readPool;
    const discard = pool && ((r: FetchReadResult) => r.partitions.forEach((p) => pool.release(p.records)));
    discard?.(first);
    return new Promise((resolve) => {
      const op = new DelayedFetch<FetchReadResult>(params.maxWaitMs, params.minBytes, readAll, (r) => resolve(r.partitions), discard);
      this.fetchPurgatory.tryCompleteElseWatch(op, params.partitions.map((r) => partitionKey(r.topic, r.partition)));
    });
  }

  /** A follower fetched: its log start may have reached what a DeleteRecords waits for. */
  readonly #onFollowerFetched = (key: string): void => void this.deleteRecordsPurgatory.checkAndComplete(key);

  async shutdown(): Promise<void> {
    clearInterval(this.#isrTimer);
    await this.fetcherManager.shutdown();
    this.producePurgatory.shutdown();
    this.fetchPurgatory.shutdown();
    this.deleteRecordsPurgatory.shutdown();
  }
}

/** A LeaderAndIsr of more partitions logs one summary line instead of one line per partition. */
const PER_PARTITION_LOG_LINES = 50;
