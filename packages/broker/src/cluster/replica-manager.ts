import { ErrorCode, GregorError, INTERNAL_TOPICS, type Logger } from '@gregor/common';
import { RecordValidationError, type LogConfig, type LogManager, type PartitionLog, type ReadBufferPool } from '@gregor/storage';
import { DelayedOperationPurgatory } from '../purgatory/delayed-operation.js';
import { ReplicaFetcherManager, type LeaderEndpoint, type ReplicaFetcherConfig } from '../replication/replica-fetcher-manager.js';
import { DelayedDeleteRecords, type DeleteRecordsPartitionStatus } from './delayed-delete-records.js';
import { DelayedFetch } from './delayed-fetch.js';
import { DelayedProduce, type ProducePartitionStatus } from './delayed-produce.js';
import { recordsForAppend } from './message-format.js';
import type { IsrWriter } from './isr-writer.js';
import { Partition, partitionKey, type LeadershipState } from './partition.js';
import type { ReplicaLog, ReplicaLogManager } from './replica-log.js';

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

export interface ProduceEntry {
  topic: string;
  partition: number;
  records: Buffer | null;
  /** Produce v0-2: the records are a MessageSet (magic 0/1), up-converted to RecordBatch v2 on append. */
  messageSet?: boolean;
}

export interface FetchPartitionRequest {
  topic: string;
  partition: number;
  fetchOffset: number;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
  /** A follower's own log start offset (Fetch v5+; -1 from consumers). */
  logStartOffset?: number;
}

export interface FetchPartitionData {
  topic: string;
  partition: number;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  records: Buffer;
}

export interface FetchParams {
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  partitions: readonly FetchPartitionRequest[];
  /**
   * Every partition with data returns at least its first whole batch, not only the first one (Fetch v0-3: the
   * answer is down-converted and then cut at the limits, so what is read must hold whole batches).
   */
  minOneBatchPerPartition?: boolean;
  /** Read into this pool's buffers; whoever writes the answer out gives them back (the Fetch handler's socket). */
  readPool?: ReadBufferPool;
}

interface FetchReadResult {
  bytes: number;
  mustReturn: boolean;
  partitions: FetchPartitionData[];
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

export interface DeleteRecordsEntry {
  topic: string;
  partition: number;
  /** The new log start offset; -1 = the high watermark. */
  offset: number;
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
    const statuses: ProducePartitionStatus[] = entries.map((e) => this.#appendToLocalLog(e, requiredAcks));
    const pending = statuses.filter((s) => s.errorCode === ErrorCode.NONE && requiredAcks === -1);
    if (pending.length === 0) return Promise.resolve(statuses);
    for (const s of pending) s.acksPending = true;
    return new Promise((resolve) => {
      const op = new DelayedProduce(timeoutMs, statuses, (t, p) => this.getPartition(t, p), this.#opts.minInsyncReplicas, resolve);
      this.producePurgatory.tryCompleteElseWatch(op, pending.map((s) => partitionKey(s.topic, s.partition)));
    });
  }

  #appendToLocalLog(e: ProduceEntry, requiredAcks: number): ProducePartitionStatus {
    const status: ProducePartitionStatus = {
      topic: e.topic,
      partition: e.partition,
      errorCode: ErrorCode.NONE,
      baseOffset: -1,
      logAppendTimeMs: -1,
      logStartOffset: -1,
      requiredOffset: -1,
      acksPending: false,
    };
    try {
      const p = this.leaderPartitionOrError(e.topic, e.partition);
      let records = e.records;
      if (e.messageSet && p.log) {
        records = recordsForAppend(records, p.log.config.maxMessageBytes);
        // Produce v0-2: a set with no complete message appends nothing and succeeds (Kafka 2.4).
        if (records.length === 0) return status;
      }
      if (!records || records.length === 0) throw new GregorError(ErrorCode.CORRUPT_MESSAGE, 'empty record set');
      const info = p.appendRecordsToLeader(records, requiredAcks, this.#opts.minInsyncReplicas(e.topic));
      status.baseOffset = info.firstOffset;
      status.logAppendTimeMs = info.logAppendTimeMs;
      status.requiredOffset = info.lastOffset + 1;
      status.logStartOffset = p.logStartOffset;
      this.fetchPurgatory.checkAndComplete(p.key);
    } catch (err) {
      if (err instanceof RecordValidationError) {
        status.errorCode = err.code;
        status.recordErrors = err.recordErrors;
        status.errorMessage = err.recordErrors.length > 0 ? (err.recordErrors[0]!.message ?? err.message) : null;
        this.#log.info({ partition: `${e.topic}-${e.partition}`, err: err.message }, 'produce refused by record validation');
      } else if (err instanceof GregorError) {
        status.errorCode = err.code;
        if (err.code !== ErrorCode.NOT_LEADER_FOR_PARTITION && err.code !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
          this.#log.debug({ partition: `${e.topic}-${e.partition}`, err: err.message }, 'produce rejected');
        }
      } else {
        status.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
        this.#log.error({ err, partition: `${e.topic}-${e.partition}` }, 'append failed');
      }
    }
    return status;
  }

  /**
   * DeleteRecords (Kafka's ReplicaManager.deleteRecords): each leader raises its log start offset (deleting whole
   * segments below it, checkpointing the new start), then the answer waits until the low watermark — the smallest
   * log start of the leader and its live followers, which follow from fetch responses — reaches the offset.
   */
  deleteRecords(timeoutMs: number, entries: DeleteRecordsEntry[]): Promise<DeleteRecordsPartitionStatus[]> {
    const statuses = entries.map((e) => this.#deleteRecordsOnLocalLog(e));
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

  readonly #isBrokerAlive = (id: number): boolean => this.#opts.isBrokerAlive?.(id) ?? true;

  #deleteRecordsOnLocalLog(e: DeleteRecordsEntry): DeleteRecordsPartitionStatus {
    const status: DeleteRecordsPartitionStatus = { topic: e.topic, partition: e.partition, requiredOffset: -1, lowWatermark: -1, errorCode: ErrorCode.NONE, acksPending: false };
    try {
      if (INTERNAL_TOPICS.has(e.topic)) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, `cannot delete records of internal topic ${e.topic}`);
      const p = this.leaderPartitionOrError(e.topic, e.partition);
      const log = p.log as L;
      if (this.#opts.deleteRecordsAllowed && !this.#opts.deleteRecordsAllowed(e.topic)) {
        throw new GregorError(ErrorCode.POLICY_VIOLATION, `records of ${p.key} cannot be deleted: its cleanup.policy has no delete`);
      }
      const offset = e.offset === -1 ? log.highWatermark : e.offset;
      if (offset < 0) throw new GregorError(ErrorCode.OFFSET_OUT_OF_RANGE, `offset ${offset} of ${p.key} is not valid`);
      if (log.maybeIncrementLogStartOffset(offset)) this.fetchPurgatory.checkAndComplete(p.key);
      status.requiredOffset = offset;
      status.lowWatermark = p.lowWatermarkIfLeader(this.#isBrokerAlive);
      status.acksPending = status.lowWatermark < offset;
    } catch (err) {
      status.errorCode = err instanceof GregorError ? err.code : ErrorCode.KAFKA_STORAGE_ERROR;
      if (!(err instanceof GregorError)) this.#log.error({ err, partition: `${e.topic}-${e.partition}` }, 'delete records failed');
    }
    return status;
  }

  /**
   * Reads for a consumer (up to the HW) or a follower (up to the LEO), waiting up to maxWaitMs for minBytes. A
   * follower's fetch offset is recorded only for partitions read without error (Kafka's updateFollowerFetchState
   * after readFromLocalLog): a fenced epoch or an offset outside the log never counts toward the HW or the ISR.
   */
  fetchMessages(params: FetchParams): Promise<FetchPartitionData[]> {
    const isFollower = params.replicaId >= 0;
    const readAll = (): FetchReadResult => this.#readFromLocalLogs(params, isFollower);
    const first = readAll();
    if (isFollower) this.#updateFollowerFetchState(params, first.partitions);
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

  #readFromLocalLogs(params: FetchParams, isFollower: boolean): FetchReadResult {
    let bytes = 0;
    let mustReturn = false;
    let budget = params.maxBytes;
    const partitions = params.partitions.map((r): FetchPartitionData => {
      const out: FetchPartitionData = {
        topic: r.topic,
        partition: r.partition,
        errorCode: ErrorCode.NONE,
        highWatermark: -1,
        lastStableOffset: -1,
        logStartOffset: -1,
        // Never null: librdkafka rejects a whole response with a null record set ("invalid
        // MessageSetSize -1"), so an error partition carries an empty one, as Kafka sends.
        records: EMPTY,
      };
      try {
        const p = this.leaderPartitionOrError(r.topic, r.partition);
        if (r.currentLeaderEpoch >= 0 && r.currentLeaderEpoch !== p.leaderEpoch) {
          throw new GregorError(
            r.currentLeaderEpoch < p.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH,
            `leader epoch ${r.currentLeaderEpoch} does not match ${p.leaderEpoch}`,
          );
        }
        const log = p.log as L;
        out.highWatermark = p.highWatermark;
        out.lastStableOffset = p.highWatermark;
        out.logStartOffset = p.logStartOffset;
        const maxOffset = isFollower ? log.logEndOffset : p.highWatermark;
        const limit = Math.min(r.partitionMaxBytes, Math.max(budget, 0));
        if (r.fetchOffset === maxOffset && r.fetchOffset >= log.logStartOffset) {
          out.records = EMPTY;
        } else {
          // The first partition with data returns at least one whole batch, even past max_bytes.
          const minOne = bytes === 0 || params.minOneBatchPerPartition === true;
          const { records } = log.read(r.fetchOffset, limit, maxOffset, minOne, params.readPool);
          out.records = records;
          bytes += records.length;
          budget -= records.length;
        }
      } catch (err) {
        mustReturn = true;
        out.errorCode = err instanceof GregorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
        if (!(err instanceof GregorError)) this.#log.error({ err, partition: `${r.topic}-${r.partition}` }, 'read failed');
        if (out.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          const p = this.getPartition(r.topic, r.partition);
          if (p) {
            out.highWatermark = p.highWatermark;
            out.logStartOffset = p.logStartOffset;
          }
        }
      }
      return out;
    });
    return { bytes, mustReturn, partitions };
  }

  #updateFollowerFetchState(params: FetchParams, results: FetchPartitionData[]): void {
    const now = Date.now();
    params.partitions.forEach((r, i) => {
      if (results[i]?.errorCode !== ErrorCode.NONE) return;
      const p = this.getPartition(r.topic, r.partition);
      const recorded = p?.updateFollowerFetchState(params.replicaId, { fetchOffset: r.fetchOffset, currentLeaderEpoch: r.currentLeaderEpoch, logStartOffset: r.logStartOffset ?? -1 }, now);
      if (!recorded) {
        this.#log.debug({ partition: `${r.topic}-${r.partition}`, replica: params.replicaId }, 'follower fetch not recorded: not an assigned replica of this leader');
        return;
      }
      // The answer carries the HW this fetch may just have moved (Kafka's LogReadResult.updateLeaderReplicaInfo).
      results[i]!.highWatermark = p!.highWatermark;
      results[i]!.lastStableOffset = p!.highWatermark;
      // The follower's log start may have reached what a DeleteRecords waits for.
      this.deleteRecordsPurgatory.checkAndComplete(p!.key);
    });
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#isrTimer);
    await this.fetcherManager.shutdown();
    this.producePurgatory.shutdown();
    this.fetchPurgatory.shutdown();
    this.deleteRecordsPurgatory.shutdown();
  }
}

const EMPTY = Buffer.alloc(0);
/** A LeaderAndIsr of more partitions logs one summary line instead of one line per partition. */
const PER_PARTITION_LOG_LINES = 50;
