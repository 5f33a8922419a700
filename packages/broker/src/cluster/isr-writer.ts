/** A leader's proposed ISR change: the partition state it writes, conditional on the zkVersion it last knew. */
export interface IsrWrite {
  topic: string;
  partition: number;
  leader: number;
  leaderEpoch: number;
  controllerEpoch: number;
  isr: number[];
  expectedZkVersion: number;
  change: 'expand' | 'shrink';
}

/**
 * What became of an ISR write, once known:
 * - `committed`: ZooKeeper holds the proposed ISR at `zkVersion`;
 * - `notApplied`: ZooKeeper still holds the state at the expected version, so the write did not land;
 * - `superseded`: someone else (the controller) wrote the state; its LeaderAndIsr will tell what it is;
 * - `unresolved`: still unknown (the writer is shutting down).
 * Only `committed` and `notApplied` end a pending change; the others keep it pending until the next LeaderAndIsr.
 */
export type IsrWriteResult = { outcome: 'committed'; zkVersion: number } | { outcome: 'notApplied' } | { outcome: 'superseded' } | { outcome: 'unresolved' };

/** Writes a leader's ISR changes (IsrManager against ZooKeeper; an in-memory one in tests). */
export interface IsrWriter {
  /** Resolves only when the outcome is known: an ambiguous failure (a timeout) is resolved by re-reading the state. */
  writeIsr(write: IsrWrite): Promise<IsrWriteResult>;
}
