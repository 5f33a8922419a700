import { ErrorCode, GregorError, silentLogger, type Logger, type PartitionStateWithReplicas } from '@gregor/common';
import type { PartitionLog } from '@gregor/storage';
import type { IsrWrite, IsrWriter, IsrWriteResult } from './isr-writer.js';
import { isrStateAfterWrite, maximalIsrOf, type IsrState } from './isr-state.js';
import { isOutOfSync, newRemoteReplica, updateFetchState, type FollowerFetch, type RemoteReplicaState } from './remote-replica.js';
import type { ReplicaLog } from './replica-log.js';

export type { FollowerFetch, RemoteReplicaState } from './remote-replica.js';
export { maximalIsrOf, type IsrState } from './isr-state.js';

/** The leadership a LeaderAndIsr decision gives this replica. */
export type LeadershipState = PartitionStateWithReplicas;

/** The leader and leader epoch a follower's fetcher works for; it acts on the log only while they are current. */
export interface FetchingFrom {
  leader: number;
  leaderEpoch: number;
}

export interface PartitionOptions {
  localBrokerId: number;
  /** replica.lag.time.max.ms: ISR shrink, and how long a caught-up follower outside the ISR holds the HW. */
  replicaLagTimeMaxMs: number;
  isrWriter: IsrWriter;
  /** The HW, the ISR or the leadership moved: waiting produce / fetch / DeleteRecords of `key` re-check (Kafka's DelayedOperations). */
  onStateChange?: (key: string) => void;
  /**
   * Is the broker registered (alive in this broker's metadata)? Only such followers join the ISR: a broker whose
   * ZooKeeper session expired may still fetch, but the controller no longer counts it (Kafka 3.x's ISR eligibility).
   * Default: every broker.
   */
  isBrokerAlive?: (brokerId: number) => boolean;
  logger?: Logger;
  time?: () => number;
}

/**
 * One partition hosted by this broker, as leader or follower (Kafka's cluster/Partition.scala). It is the only writer
 * of the partition's replica state: leader, leader epoch, ISR, the followers' LEOs, the high watermark, and of the
 * follower's log (append, truncation). Every rule about them is here (with remote-replica.ts, isr-state.ts):
 * - the HW is the smallest LEO of the maximal ISR and of followers caught up within replica.lag.time.max.ms, and
 *   only moves forward;
 * - one ISR change at a time; a pending one counts for the HW as its larger side until ZooKeeper's answer is known;
 * - a follower's fetch counts only when its leader epoch matches and its offset is inside [log start, LEO];
 * - a follower's fetcher changes the log only while this broker follows the leader and epoch it fetched from.
 */
export class Partition<L extends ReplicaLog = PartitionLog> {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  readonly #opts: PartitionOptions;
  readonly #logger: Logger;
  readonly #now: () => number;
  #log: L | null = null;
  #leaderReplicaId = -1;
  #leaderEpoch = -1;
  /** The leader's LEO when it took this leader epoch; a follower must reach it to join the ISR. */
  #leaderEpochStartOffset = -1;
  #controllerEpoch = -1;
  #zkVersion = -1;
  #isrState: IsrState = { kind: 'committed', isr: [] };
  #assignedReplicas: readonly number[] = [];
  readonly #remoteReplicas = new Map<number, RemoteReplicaState>();

  constructor(topic: string, partition: number, opts: PartitionOptions) {
    this.topic = topic;
    this.partition = partition;
    this.key = partitionKey(topic, partition);
    this.#opts = opts;
    this.#logger = (opts.logger ?? silentLogger()).child({ partition: this.key });
    this.#now = opts.time ?? Date.now;
  }

  // ---- read-only views ---------------------------------------------------------------------

  get log(): L | null {
    return this.#log;
  }

  get localBrokerId(): number {
    return this.#opts.localBrokerId;
  }

  get leaderReplicaId(): number {
    return this.#leaderReplicaId;
  }

  get leaderEpoch(): number {
    return this.#leaderEpoch;
  }

  get controllerEpoch(): number {
    return this.#controllerEpoch;
  }

  get zkVersion(): number {
    return this.#zkVersion;
  }

  /** The ISR committed in ZooKeeper (as far as this broker knows). */
  get isr(): readonly number[] {
    return this.#isrState.isr;
  }

  /** The committed ISR plus a member being added (KIP-497): what the HW and acks=all wait for. */
  get maximalIsr(): readonly number[] {
    return maximalIsrOf(this.#isrState);
  }

  get isrState(): IsrState {
    return this.#isrState;
  }

  get assignedReplicas(): readonly number[] {
    return this.#assignedReplicas;
  }

  /** What the leader knows of each follower (read-only: only follower fetches change it). */
  get remoteReplicas(): ReadonlyMap<number, Readonly<RemoteReplicaState>> {
    return this.#remoteReplicas;
  }

  get isLeader(): boolean {
    return this.#leaderReplicaId === this.#opts.localBrokerId;
  }

  get highWatermark(): number {
    return this.#log?.highWatermark ?? 0;
  }

  get logEndOffset(): number {
    return this.#log?.logEndOffset ?? 0;
  }

  get logStartOffset(): number {
    return this.#log?.logStartOffset ?? 0;
  }

  // ---- leadership (LeaderAndIsr, StopReplica) ----------------------------------------------

  /** Applies a LeaderAndIsr decision that makes this broker leader; returns true if it was not leader before. */
  makeLeader(state: LeadershipState, log: L, nowMs = this.#now()): boolean {
    // A leader that stays leader (a new epoch after an ISR or replica-set change) keeps what it knows of its followers.
    const wasLeader = this.isLeader;
    this.#applyState(state, log);
    this.#leaderEpochStartOffset = log.logEndOffset;
    // KIP-101 / KAFKA-7415: the new epoch starts at the LEO now, so followers with later records truncate correctly.
    log.leaderEpochCache.assign(state.leaderEpoch, log.logEndOffset);
    const fresh = new Map<number, RemoteReplicaState>();
    for (const id of state.replicas) {
      if (id === this.#opts.localBrokerId) continue;
      fresh.set(id, newRemoteReplica(id, wasLeader ? this.#remoteReplicas.get(id) : undefined, state.isr.includes(id), this.#leaderEpochStartOffset, nowMs));
    }
    this.#remoteReplicas.clear();
    for (const [id, r] of fresh) this.#remoteReplicas.set(id, r);
    this.#maybeIncrementLeaderHighWatermark(nowMs);
    this.#notify();
    return !wasLeader;
  }

  /** Applies a LeaderAndIsr decision that makes this broker a follower; returns true if the leader or its epoch changed. */
  makeFollower(state: LeadershipState, log: L): boolean {
    const changed = this.#leaderReplicaId !== state.leader || this.#leaderEpoch !== state.leaderEpoch;
    this.#applyState(state, log);
    this.#leaderEpochStartOffset = -1;
    this.#remoteReplicas.clear();
    this.#notify();
    return changed;
  }

  /** StopReplica: this broker neither leads nor follows it any more; an ISR write in flight is ignored when it returns. */
  stopReplica(): void {
    this.#leaderReplicaId = -1;
    this.#isrState = { kind: 'committed', isr: this.#isrState.isr };
    this.#remoteReplicas.clear();
    this.#notify();
  }

  #applyState(state: LeadershipState, log: L): void {
    this.#log = log;
    this.#controllerEpoch = state.controllerEpoch;
    this.#leaderReplicaId = state.leader;
    this.#leaderEpoch = state.leaderEpoch;
    // A new state from the controller ends any pending ISR change: its answer, when it comes, is ignored.
    this.#isrState = { kind: 'committed', isr: [...state.isr] };
    this.#zkVersion = state.zkVersion;
    this.#assignedReplicas = [...state.replicas];
  }

  // ---- leader: writes and follower fetches -------------------------------------------------

  #checkLeader(): L {
    if (!this.isLeader || !this.#log) {
      throw new GregorError(ErrorCode.NOT_LEADER_FOR_PARTITION, `broker ${this.#opts.localBrokerId} is not the leader of ${this.key}`);
    }
    return this.#log;
  }

  /** Leader append. acks=all with a committed ISR smaller than min.insync.replicas writes nothing. */
  appendRecordsToLeader(records: Buffer, requiredAcks: number, minInsyncReplicas: number) {
    const log = this.#checkLeader();
    if (requiredAcks === -1 && this.isr.length < minInsyncReplicas) {
      throw new GregorError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `The size of the current ISR ${this.isr.length} is insufficient to satisfy the min.isr requirement of ${minInsyncReplicas} for ${this.key}`,
      );
    }
    // The request's own bytes: offsets are assigned in place, no copy.
    const info = log.appendAsLeader(records, this.#leaderEpoch, { inPlace: true });
    if (this.#maybeIncrementLeaderHighWatermark(this.#now())) this.#notify();
    return info;
  }

  /**
   * Records a follower's fetch (Kafka's updateFollowerFetchState), after the leader served it without error. Its fetch
   * offset is its LEO only if it fetched in this leader epoch (a fenced follower may not have truncated its divergent
   * records yet) and inside [log start, LEO] (a follower past the LEO has records this leader never wrote). Anything
   * else is ignored and returns false: it neither moves the HW nor joins the ISR.
   */
  updateFollowerFetchState(replicaId: number, fetch: FollowerFetch, nowMs = this.#now()): boolean {
    if (!this.isLeader || !this.#log) return false;
    const r = this.#remoteReplicas.get(replicaId);
    if (!r) return false;
    if (fetch.currentLeaderEpoch >= 0 && fetch.currentLeaderEpoch !== this.#leaderEpoch) return false;
    const log = this.#log;
    const leo = log.logEndOffset;
    if (fetch.fetchOffset < log.logStartOffset || fetch.fetchOffset > leo) return false;
    const previousLeo = r.logEndOffset;
    updateFetchState(r, fetch, leo, nowMs);
    this.#maybeExpandIsr(r);
    if (previousLeo !== r.logEndOffset && this.#maybeIncrementLeaderHighWatermark(nowMs)) this.#notify();
    return true;
  }

  /** ISR members (not the leader) not caught up for longer than replica.lag.time.max.ms (Kafka 0.9+'s time rule). */
  outOfSyncReplicas(nowMs = this.#now()): number[] {
    if (!this.isLeader || !this.#log) return [];
    const leo = this.#log.logEndOffset;
    return this.isr.filter((id) => {
      if (id === this.#opts.localBrokerId) return false;
      const r = this.#remoteReplicas.get(id);
      if (!r) return true;
      return isOutOfSync(r, leo, nowMs, this.#opts.replicaLagTimeMaxMs);
    });
  }

  /** The periodic ISR shrink (Kafka's maybeShrinkIsr): starts removing lagging members; returns true if it did. */
  maybeShrinkIsr(nowMs = this.#now()): boolean {
    if (this.#isrState.kind !== 'committed') return false;
    const out = this.outOfSyncReplicas(nowMs);
    if (out.length === 0) return false;
    const current = this.#isrState;
    this.#logger.info(
      { outOfSync: out.map((id) => ({ brokerId: id, logEndOffset: this.#remoteReplicas.get(id)?.logEndOffset ?? -1 })), hw: this.highWatermark, leo: this.logEndOffset },
      'followers fell behind: shrinking the ISR',
    );
    // The removed members stay in the maximal ISR until ZooKeeper has the smaller one: the HW must not pass them before.
    this.#sendIsrUpdate({ kind: 'pendingShrink', isr: current.isr, outOfSyncReplicaIds: out }, current.isr.filter((id) => !out.includes(id)));
    return true;
  }

  /** Kafka's maybeExpandIsr: a follower with everything up to the HW and the current epoch's start joins. */
  #maybeExpandIsr(r: RemoteReplicaState): void {
    const current = this.#isrState;
    if (current.kind !== 'committed' || current.isr.includes(r.brokerId) || !this.#assignedReplicas.includes(r.brokerId)) return;
    if (r.logEndOffset < this.highWatermark || r.logEndOffset < this.#leaderEpochStartOffset) return;
    if (this.#opts.isBrokerAlive && !this.#opts.isBrokerAlive(r.brokerId)) return;
    // From now on the HW waits for this follower too, whatever ZooKeeper answers, until the answer is known.
    this.#sendIsrUpdate({ kind: 'pendingExpand', isr: current.isr, newInSyncReplicaId: r.brokerId }, [...current.isr, r.brokerId]);
  }

  #sendIsrUpdate(pending: Exclude<IsrState, { kind: 'committed' }>, newIsr: number[]): void {
    this.#isrState = pending;
    const write: IsrWrite = {
      topic: this.topic,
      partition: this.partition,
      leader: this.#opts.localBrokerId,
      leaderEpoch: this.#leaderEpoch,
      controllerEpoch: this.#controllerEpoch,
      isr: newIsr,
      expectedZkVersion: this.#zkVersion,
      change: pending.kind === 'pendingExpand' ? 'expand' : 'shrink',
    };
    this.#opts.isrWriter.writeIsr(write).then(
      (result) => this.#onIsrWriteResult(pending, write, result),
      (err: unknown) => {
        this.#logger.error({ err }, 'ISR write failed unexpectedly; the change stays pending until the next LeaderAndIsr');
        this.#onIsrWriteResult(pending, write, { outcome: 'unresolved' });
      },
    );
  }

  #onIsrWriteResult(pending: IsrState, write: IsrWrite, result: IsrWriteResult): void {
    // A LeaderAndIsr (or StopReplica) replaced the state meanwhile: this answer is out of date.
    if (this.#isrState !== pending || !this.isLeader || this.#leaderEpoch !== write.leaderEpoch) return;
    const next = isrStateAfterWrite(pending, write, result, this.#logger);
    if (!next) return;
    this.#isrState = next.isrState;
    if (next.zkVersion !== undefined) this.#zkVersion = next.zkVersion;
    this.#maybeIncrementLeaderHighWatermark(this.#now());
    // acks=all waiters re-check min.insync.replicas against the new ISR, even if the HW did not move.
    this.#notify();
  }

  /** HW = smallest LEO of the maximal ISR and of followers caught up recently; only forward. Returns true if it moved. */
  maybeIncrementLeaderHighWatermark(nowMs = this.#now()): boolean {
    const moved = this.#maybeIncrementLeaderHighWatermark(nowMs);
    if (moved) this.#notify();
    return moved;
  }

  #maybeIncrementLeaderHighWatermark(nowMs: number): boolean {
    const log = this.#log;
    if (!log || !this.isLeader) return false;
    const maximal = this.maximalIsr;
    let newHw = log.logEndOffset;
    for (const id of maximal) {
      if (id !== this.#opts.localBrokerId && !this.#remoteReplicas.has(id)) return false; // an ISR member we know nothing of
    }
    for (const r of this.#remoteReplicas.values()) {
      if (r.logEndOffset < newHw && (maximal.includes(r.brokerId) || nowMs - r.lastCaughtUpTimeMs <= this.#opts.replicaLagTimeMaxMs)) {
        newHw = r.logEndOffset;
      }
    }
    return newHw >= 0 && log.maybeIncrementHighWatermark(newHw);
  }

  /**
   * DeleteRecords on the leader (Kafka's Partition.deleteRecordsOnLeader): raises the log start to `offset` (-1 = the
   * HW); never above the HW (OFFSET_OUT_OF_RANGE). Returns the offset the request waits for and whether the start moved.
   */
  deleteRecordsOnLeader(offset: number): { requestedOffset: number; logStartOffsetMoved: boolean } {
    const log = this.#checkLeader();
    const requestedOffset = offset === -1 ? log.highWatermark : offset;
    if (requestedOffset < 0) throw new GregorError(ErrorCode.OFFSET_OUT_OF_RANGE, `offset ${requestedOffset} of ${this.key} is not valid`);
    return { requestedOffset, logStartOffsetMoved: log.maybeIncrementLogStartOffset(requestedOffset) };
  }

  /**
   * Kafka's lowWatermarkIfLeader: the smallest log start offset of the leader and of every assigned replica on a live
   * broker (one that has not fetched yet counts as -1). A DeleteRecords is done when it reaches the requested offset.
   */
  lowWatermarkIfLeader(isBrokerAlive: (brokerId: number) => boolean): number {
    const log = this.#checkLeader();
    let lowWatermark = log.logStartOffset;
    for (const r of this.#remoteReplicas.values()) {
      if (isBrokerAlive(r.brokerId) && r.logStartOffset < lowWatermark) lowWatermark = r.logStartOffset;
    }
    return lowWatermark;
  }

  /** For acks=all: has every member of the maximal ISR got `requiredOffset`? */
  checkEnoughReplicasReachOffset(requiredOffset: number, minInsyncReplicas: number): { done: boolean; errorCode: number } {
    if (!this.isLeader) return { done: true, errorCode: ErrorCode.NOT_LEADER_FOR_PARTITION };
    if (this.highWatermark >= requiredOffset) {
      const errorCode = this.maximalIsr.length < minInsyncReplicas ? ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND : ErrorCode.NONE;
      return { done: true, errorCode };
    }
    return { done: false, errorCode: ErrorCode.NONE };
  }

  // ---- follower: the fetcher's changes to the log ------------------------------------------

  /**
   * True while this broker follows `from.leader` in `from.leaderEpoch`. A fetcher's answer (OffsetsForLeaderEpoch,
   * ListOffsets, Fetch) is about that leader's log in that epoch: once this broker leads, or follows another epoch,
   * acting on it could cut records this broker acknowledged or received since.
   */
  isFollowing(from: FetchingFrom): boolean {
    return !!this.#log && !this.isLeader && this.#leaderReplicaId === from.leader && this.#leaderEpoch === from.leaderEpoch;
  }

  /** Follower truncation (KIP-101/279 or an unclean leader's end); does nothing and returns false unless still following `from`. */
  truncateTo(offset: number, from: FetchingFrom): boolean {
    if (!this.isFollowing(from)) return false;
    this.#log!.truncateTo(offset);
    return true;
  }

  /** Follower behind the leader's log start: restart the log there; only while still following `from`. */
  truncateFullyAndStartAt(offset: number, from: FetchingFrom): boolean {
    if (!this.isFollowing(from)) return false;
    this.#log!.truncateFullyAndStartAt(offset);
    return true;
  }

  /**
   * Appends what the leader sent (the log leaves out a partial last batch), then takes the leader's HW (never above our LEO, never back) and
   * follows its log start. Returns null if no longer following `from`, else whether the log start moved.
   */
  appendRecordsAsFollower(records: Buffer | null, leaderHighWatermark: number, leaderLogStartOffset: number, from: FetchingFrom): { logStartOffsetMoved: boolean } | null {
    if (!this.isFollowing(from)) return null;
    const log = this.#log!;
    if (records && records.length > 0) log.appendAsFollower(records);
    // Follower HW = min(leader HW, own LEO): one round-trip behind the leader.
    const hw = Math.min(leaderHighWatermark, log.logEndOffset);
    if (hw > log.highWatermark) log.updateHighWatermark(hw);
    // Followers follow the leader's log start (Kafka: log.maybeIncrementLogStartOffset(leaderLogStartOffset)); it
    // cannot pass our HW, since we fetched at or above it, but the bound keeps a stray answer from failing the fetch.
    const logStartOffsetMoved = leaderLogStartOffset > log.logStartOffset && log.maybeIncrementLogStartOffset(Math.min(leaderLogStartOffset, log.highWatermark));
    return { logStartOffsetMoved };
  }

  #notify(): void {
    this.#opts.onStateChange?.(this.key);
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}
