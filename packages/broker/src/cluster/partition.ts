import { ErrorCode, GregorError } from '@gregor/common';
import type { PartitionLog } from '@gregor/storage';

/** What the leader knows about one follower (Kafka's Replica for a remote broker). */
export interface RemoteReplicaState {
  brokerId: number;
  logEndOffset: number;
  /** From the follower's fetch requests (Fetch v5+ log_start_offset); -1 until it fetches. */
  logStartOffset: number;
  lastCaughtUpTimeMs: number;
  lastFetchLeaderLogEndOffset: number;
  lastFetchTimeMs: number;
}

export interface LeadershipState {
  controllerEpoch: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  zkVersion: number;
  replicas: number[];
}

/**
 * One partition hosted by this broker, as leader or follower (Kafka's cluster/Partition.scala).
 * The leader keeps the ISR and every follower's LEO, and moves the high watermark to the smallest
 * LEO in the ISR, so that consumers only see what every in-sync replica has.
 */
export class Partition {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  readonly #localBrokerId: number;
  log: PartitionLog | null = null;
  leaderReplicaId = -1;
  leaderEpoch = -1;
  controllerEpoch = -1;
  zkVersion = -1;
  isr: number[] = [];
  assignedReplicas: number[] = [];
  readonly remoteReplicas = new Map<number, RemoteReplicaState>();

  constructor(topic: string, partition: number, localBrokerId: number) {
    this.topic = topic;
    this.partition = partition;
    this.key = partitionKey(topic, partition);
    this.#localBrokerId = localBrokerId;
  }

  get isLeader(): boolean {
    return this.leaderReplicaId === this.#localBrokerId;
  }

  get highWatermark(): number {
    return this.log?.highWatermark ?? 0;
  }

  get logEndOffset(): number {
    return this.log?.logEndOffset ?? 0;
  }

  get logStartOffset(): number {
    return this.log?.logStartOffset ?? 0;
  }

  /** Applies a LeaderAndIsr decision that makes this broker leader; returns true if leadership changed. */
  makeLeader(state: LeadershipState, log: PartitionLog, nowMs: number): boolean {
    // A leader that stays leader (a new epoch after an ISR or replica-set change) keeps what it
    // knows of its followers, so the high watermark does not stall until they fetch again.
    const wasLeader = this.isLeader;
    this.#applyState(state, log);
    // A new leader does not know followers' LEOs until they fetch; treat ISR members as caught up
    // now so that it does not drop them from the ISR before they had a chance to fetch.
    const fresh = new Map<number, RemoteReplicaState>();
    for (const id of state.replicas) {
      if (id === this.#localBrokerId) continue;
      const prev = this.remoteReplicas.get(id);
      fresh.set(id, {
        brokerId: id,
        logEndOffset: prev && wasLeader ? prev.logEndOffset : -1,
        logStartOffset: prev && wasLeader ? prev.logStartOffset : -1,
        lastCaughtUpTimeMs: state.isr.includes(id) ? nowMs : (prev?.lastCaughtUpTimeMs ?? 0),
        lastFetchLeaderLogEndOffset: prev?.lastFetchLeaderLogEndOffset ?? 0,
        lastFetchTimeMs: prev?.lastFetchTimeMs ?? 0,
      });
    }
    this.remoteReplicas.clear();
    for (const [id, r] of fresh) this.remoteReplicas.set(id, r);
    log.leaderEpochCache.assign(state.leaderEpoch, log.logEndOffset);
    this.maybeIncrementLeaderHighWatermark();
    return !wasLeader;
  }

  /** Applies a LeaderAndIsr decision that makes this broker a follower; returns true if the leader changed. */
  makeFollower(state: LeadershipState, log: PartitionLog): boolean {
    const changed = this.leaderReplicaId !== state.leader || this.leaderEpoch !== state.leaderEpoch;
    this.#applyState(state, log);
    this.remoteReplicas.clear();
    return changed;
  }

  #applyState(state: LeadershipState, log: PartitionLog): void {
    this.log = log;
    this.controllerEpoch = state.controllerEpoch;
    this.leaderReplicaId = state.leader;
    this.leaderEpoch = state.leaderEpoch;
    this.isr = [...state.isr];
    this.zkVersion = state.zkVersion;
    this.assignedReplicas = [...state.replicas];
  }

  /** Leader append. acks=all with an ISR smaller than min.insync.replicas writes nothing. */
  appendRecordsToLeader(records: Buffer, requiredAcks: number, minInsyncReplicas: number) {
    if (!this.isLeader || !this.log) throw new GregorError(ErrorCode.NOT_LEADER_FOR_PARTITION, `broker ${this.#localBrokerId} is not the leader of ${this.key}`);
    if (requiredAcks === -1 && this.isr.length < minInsyncReplicas) {
      throw new GregorError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `The size of the current ISR ${this.isr.length} is insufficient to satisfy the min.isr requirement of ${minInsyncReplicas} for ${this.key}`,
      );
    }
    // The request's own bytes: offsets are assigned in place, no copy.
    const info = this.log.appendAsLeader(records, this.leaderEpoch, { inPlace: true });
    this.maybeIncrementLeaderHighWatermark();
    return info;
  }

  /**
   * Records a follower's fetch (its fetch offset is its LEO, plus its log start offset when it sends one) and keeps
   * its caught-up time (Kafka 0.9+ rule).
   */
  updateFollowerFetchState(replicaId: number, fetchOffset: number, nowMs: number, followerLogStartOffset = -1): void {
    const r = this.remoteReplicas.get(replicaId);
    if (!r) return;
    if (followerLogStartOffset >= 0) r.logStartOffset = followerLogStartOffset;
    const leo = this.logEndOffset;
    if (fetchOffset >= leo) r.lastCaughtUpTimeMs = nowMs;
    else if (fetchOffset >= r.lastFetchLeaderLogEndOffset) r.lastCaughtUpTimeMs = Math.max(r.lastCaughtUpTimeMs, r.lastFetchTimeMs);
    r.logEndOffset = fetchOffset;
    r.lastFetchLeaderLogEndOffset = leo;
    r.lastFetchTimeMs = nowMs;
  }

  /** ISR members (not the leader) not caught up for longer than maxLagMs (Kafka 0.9+'s time rule). */
  outOfSyncReplicas(nowMs: number, maxLagMs: number): number[] {
    if (!this.isLeader) return [];
    const leo = this.logEndOffset;
    return this.isr.filter((id) => {
      if (id === this.#localBrokerId) return false;
      const r = this.remoteReplicas.get(id);
      if (!r) return true;
      return r.logEndOffset !== leo && nowMs - r.lastCaughtUpTimeMs > maxLagMs;
    });
  }

  /** A follower outside the ISR may join once it has everything up to the HW and the current epoch's start. */
  canJoinIsr(replicaId: number): boolean {
    if (!this.isLeader || this.isr.includes(replicaId) || !this.assignedReplicas.includes(replicaId)) return false;
    const r = this.remoteReplicas.get(replicaId);
    if (!r || !this.log) return false;
    const epochStart = this.log.leaderEpochCache.entries().find((e) => e.epoch === this.leaderEpoch)?.startOffset ?? 0;
    return r.logEndOffset >= this.highWatermark && r.logEndOffset >= epochStart;
  }

  /** HW = smallest LEO in the ISR; it only moves forward. Returns true if it moved. */
  maybeIncrementLeaderHighWatermark(): boolean {
    if (!this.log || !this.isLeader) return false;
    let newHw = this.log.logEndOffset;
    for (const id of this.isr) {
      if (id === this.#localBrokerId) continue;
      const r = this.remoteReplicas.get(id);
      newHw = Math.min(newHw, r ? Math.max(r.logEndOffset, 0) : 0);
    }
    if (newHw > this.log.highWatermark) {
      this.log.highWatermark = newHw;
      return true;
    }
    return false;
  }

  /**
   * Kafka's lowWatermarkIfLeader: the smallest log start offset of the leader and of every assigned replica on a live
   * broker (one that has not fetched yet counts as -1). A DeleteRecords is done when it reaches the requested offset.
   */
  lowWatermarkIfLeader(isBrokerAlive: (brokerId: number) => boolean): number {
    if (!this.isLeader || !this.log) throw new GregorError(ErrorCode.NOT_LEADER_FOR_PARTITION, `broker ${this.#localBrokerId} is not the leader of ${this.key}`);
    let lowWatermark = this.log.logStartOffset;
    for (const r of this.remoteReplicas.values()) {
      if (isBrokerAlive(r.brokerId) && r.logStartOffset < lowWatermark) lowWatermark = r.logStartOffset;
    }
    return lowWatermark;
  }

  /** For acks=all: has every ISR member got `requiredOffset`? */
  checkEnoughReplicasReachOffset(requiredOffset: number, minInsyncReplicas: number): { done: boolean; errorCode: number } {
    if (!this.isLeader) return { done: true, errorCode: ErrorCode.NOT_LEADER_FOR_PARTITION };
    if (this.highWatermark >= requiredOffset) {
      const errorCode = this.isr.length < minInsyncReplicas ? ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND : ErrorCode.NONE;
      return { done: true, errorCode };
    }
    return { done: false, errorCode: ErrorCode.NONE };
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}
