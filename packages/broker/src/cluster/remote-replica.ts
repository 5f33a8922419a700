/** What the leader knows about one follower (Kafka's cluster/Replica.scala for a remote broker). */
export interface RemoteReplicaState {
  brokerId: number;
  /** The follower's last validated fetch offset; -1 until it fetches from this leader. */
  logEndOffset: number;
  /** From the follower's fetch requests (Fetch v5+ log_start_offset); -1 until it fetches. */
  logStartOffset: number;
  lastCaughtUpTimeMs: number;
  lastFetchLeaderLogEndOffset: number;
  lastFetchTimeMs: number;
}

/** One follower fetch of this partition, as the Fetch request carried it. */
export interface FollowerFetch {
  fetchOffset: number;
  /** The leader epoch the follower believes current (-1: not sent). */
  currentLeaderEpoch: number;
  /** The follower's log start offset (-1: not sent). */
  logStartOffset: number;
}

/**
 * A follower's state as a leader takes a new epoch. A leader that stays leader passes `prev` (what it knew of the
 * follower's log, so the HW does not stall until it fetches again); a new leader knows nothing yet.
 */
export function newRemoteReplica(brokerId: number, prev: RemoteReplicaState | undefined, inIsr: boolean, leaderEpochStartOffset: number, nowMs: number): RemoteReplicaState {
  return {
    brokerId,
    logEndOffset: prev?.logEndOffset ?? -1,
    logStartOffset: prev?.logStartOffset ?? -1,
    // Kafka's resetLastCaughtUpTime: ISR members count as caught up now, so they are not dropped before they had
    // a chance to fetch; others not. A follower at the epoch's start offset is caught up as of now.
    lastCaughtUpTimeMs: inIsr ? nowMs : 0,
    lastFetchLeaderLogEndOffset: leaderEpochStartOffset,
    lastFetchTimeMs: nowMs,
  };
}

/** Kafka's Replica.updateFetchState for a fetch the leader validated: the follower's LEO, log start and catch-up time. */
export function updateFetchState(r: RemoteReplicaState, fetch: FollowerFetch, leaderLogEndOffset: number, nowMs: number): void {
  if (fetch.logStartOffset >= 0) r.logStartOffset = fetch.logStartOffset;
  // Kafka 0.9+: caught up if at the LEO now, or at least at the LEO of its previous fetch (then, as of that fetch).
  if (fetch.fetchOffset >= leaderLogEndOffset) r.lastCaughtUpTimeMs = nowMs;
  else if (fetch.fetchOffset >= r.lastFetchLeaderLogEndOffset) r.lastCaughtUpTimeMs = Math.max(r.lastCaughtUpTimeMs, r.lastFetchTimeMs);
  r.logEndOffset = fetch.fetchOffset;
  r.lastFetchLeaderLogEndOffset = leaderLogEndOffset;
  r.lastFetchTimeMs = nowMs;
}

/** Kafka 0.9+'s time rule: a follower not at the leader's LEO and not caught up for longer than replica.lag.time.max.ms. */
export function isOutOfSync(r: RemoteReplicaState, leaderLogEndOffset: number, nowMs: number, replicaLagTimeMaxMs: number): boolean {
  return r.logEndOffset !== leaderLogEndOffset && nowMs - r.lastCaughtUpTimeMs > replicaLagTimeMaxMs;
}
