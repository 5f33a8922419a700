/**
 * Partition leader election rules (Kafka's Election.scala). Pure functions of the controller's view.
 */
export interface LeaderAndIsr {
  leader: number;
  leaderEpoch: number;
  isr: number[];
  controllerEpoch: number;
  /** zkVersion of the state znode this was read from / written as. */
  zkVersion: number;
}

export interface ElectionResult {
  leader: number;
  isr: number[];
  /** true when the leader came from outside the ISR (possible data loss). */
  unclean: boolean;
}

/** Leader lost or partition new/offline: first assigned replica that is live and in the ISR. */
export function offlinePartitionLeaderElection(
  assignment: number[],
  isr: number[],
  liveBrokers: Set<number>,
  uncleanLeaderElectionEnabled: boolean,
): ElectionResult | null {
  const liveIsr = isr.filter((b) => liveBrokers.has(b));
  const clean = assignment.find((b) => liveBrokers.has(b) && liveIsr.includes(b));
  if (clean !== undefined) return { leader: clean, isr: liveIsr, unclean: false };
  if (!uncleanLeaderElectionEnabled) return null;
  const any = assignment.find((b) => liveBrokers.has(b));
  return any === undefined ? null : { leader: any, isr: [any], unclean: true };
}

/** A brand-new partition: leader = first live assigned replica, ISR = live assigned replicas. */
export function newPartitionLeaderElection(assignment: number[], liveBrokers: Set<number>): ElectionResult | null {
  const live = assignment.filter((b) => liveBrokers.has(b));
  return live.length === 0 ? null : { leader: live[0]!, isr: live, unclean: false };
}

/** Preferred replica election: only the first assigned replica, if live and in the ISR. */
export function preferredReplicaLeaderElection(assignment: number[], isr: number[], liveBrokers: Set<number>): ElectionResult | null {
  const preferred = assignment[0];
  if (preferred === undefined || !liveBrokers.has(preferred) || !isr.includes(preferred)) return null;
  return { leader: preferred, isr, unclean: false };
}

/** Controlled shutdown: first assigned replica live, in the ISR, not shutting down; ISR minus those shutting down. */
export function controlledShutdownLeaderElection(
  assignment: number[],
  isr: number[],
  liveBrokers: Set<number>,
  shuttingDown: Set<number>,
): ElectionResult | null {
  const leader = assignment.find((b) => liveBrokers.has(b) && isr.includes(b) && !shuttingDown.has(b));
  if (leader === undefined) return null;
  return { leader, isr: isr.filter((b) => !shuttingDown.has(b)), unclean: false };
}

/** Reassignment: first target replica live and in the ISR; ISR unchanged. */
export function reassignPartitionLeaderElection(target: number[], isr: number[], liveBrokers: Set<number>): ElectionResult | null {
  const leader = target.find((b) => liveBrokers.has(b) && isr.includes(b));
  return leader === undefined ? null : { leader, isr, unclean: false };
}
