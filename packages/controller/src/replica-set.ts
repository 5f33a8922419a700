/**
 * A partition's replica set while it may be moving (KIP-455, Kafka 2.4's ReplicaAssignment):
 * with origin replicas ORS and target replicas TRS, the replica set is RS = distinct(TRS ++ ORS),
 * adding = RS − ORS and removing = RS − TRS. The assignment znode stores exactly these three, so a
 * new controller can resume a reassignment and a cancel can return to ORS.
 */
export interface ReplicaSet {
  replicas: number[];
  adding: number[];
  removing: number[];
}

export function replicaSet(replicas: number[]): ReplicaSet {
  return { replicas: [...replicas], adding: [], removing: [] };
}

/** ORS: what the partition had before the reassignment started. */
export function originReplicas(s: ReplicaSet): number[] {
  return s.replicas.filter((b) => !s.adding.includes(b));
}

/** TRS: what the partition will have once the reassignment completes. */
export function targetReplicas(s: ReplicaSet): number[] {
  return s.replicas.filter((b) => !s.removing.includes(b));
}

export function isBeingReassigned(s: ReplicaSet): boolean {
  return s.adding.length > 0 || s.removing.length > 0;
}

/** Reassigns to `target`, always from the original replicas (a re-reassignment replaces the last one). */
export function reassignTo(s: ReplicaSet, target: number[]): ReplicaSet {
  const origin = originReplicas(s);
  const replicas = [...new Set([...target, ...origin])];
  return { replicas, adding: replicas.filter((b) => !origin.includes(b)), removing: replicas.filter((b) => !target.includes(b)) };
}

export function sameReplicaSet(a: ReplicaSet, b: ReplicaSet): boolean {
  return sameList(a.replicas, b.replicas) && sameList(a.adding, b.adding) && sameList(a.removing, b.removing);
}

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
