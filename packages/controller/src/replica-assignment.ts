import { ErrorCode, GregorError } from '@gregor/common';

/** partition -> replica broker ids; the first replica is the preferred leader. */
export type ReplicaAssignment = Map<number, number[]>;

/**
 * Kafka's rack-unaware assignment (AdminUtils.assignReplicasToBrokersRackUnaware): leaders spread
 * round-robin from a random start, followers shifted so replicas of consecutive partitions differ.
 * `startIndex`/`shift` are random in Kafka; tests pass them in to compare with Kafka's outputs.
 */
export function assignReplicasToBrokers(
  brokerIds: number[],
  numPartitions: number,
  replicationFactor: number,
  opts: { startPartitionId?: number; startIndex?: number; shift?: number; random?: () => number } = {},
): ReplicaAssignment {
  if (numPartitions <= 0) throw new GregorError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.');
  if (replicationFactor <= 0) throw new GregorError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.');
  if (replicationFactor > brokerIds.length) {
    throw new GregorError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Replication factor: ${replicationFactor} larger than available brokers: ${brokerIds.length}.`,
    );
  }
  const brokers = [...brokerIds].sort((a, b) => a - b);
  const n = brokers.length;
  const random = opts.random ?? Math.random;
  const startIndex = opts.startIndex ?? Math.floor(random() * n);
  let shift = opts.shift ?? Math.floor(random() * n);
  let currentPartitionId = Math.max(0, opts.startPartitionId ?? 0);
  const out: ReplicaAssignment = new Map();
  for (let i = 0; i < numPartitions; i++) {
    if (currentPartitionId > 0 && currentPartitionId % n === 0) shift++;
    const first = (currentPartitionId + startIndex) % n;
    const replicas = [brokers[first]!];
    for (let j = 0; j < replicationFactor - 1; j++) {
      replicas.push(brokers[replicaIndex(first, shift, j, n)]!);
    }
    out.set(currentPartitionId, replicas);
    currentPartitionId++;
  }
  return out;
}

function replicaIndex(firstReplicaIndex: number, secondReplicaShift: number, replicaIndexInList: number, nBrokers: number): number {
  const shift = 1 + ((secondReplicaShift + replicaIndexInList) % (nBrokers - 1));
  return (firstReplicaIndex + shift) % nBrokers;
}

/** Checks a manual assignment as CreateTopics does. */
export function validateManualAssignment(assignment: ReplicaAssignment, liveBrokerIds: Set<number>): void {
  const partitions = [...assignment.keys()].sort((a, b) => a - b);
  partitions.forEach((p, i) => {
    if (p !== i) throw new GregorError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Partitions should be a consecutive 0-based integer sequence');
  });
  let rf = -1;
  for (const [p, replicas] of assignment) {
    if (replicas.length === 0) throw new GregorError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Partition ${p} has no replicas`);
    if (new Set(replicas).size !== replicas.length) {
      throw new GregorError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Duplicate brokers in the replica list of partition ${p}`);
    }
    if (rf >= 0 && replicas.length !== rf) {
      throw new GregorError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'All partitions should have the same number of replicas');
    }
    rf = replicas.length;
    for (const b of replicas) {
      if (!liveBrokerIds.has(b)) throw new GregorError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Unknown broker ${b} in the assignment of partition ${p}`);
    }
  }
}
