import { describe, expect, it } from 'vitest';
import { isBeingReassigned, originReplicas, reassignTo, replicaSet, targetReplicas } from './replica-set.js';

describe('KIP-455 replica sets', () => {
  it('RS = distinct(TRS ++ ORS), adding = RS - ORS, removing = RS - TRS (KafkaController.onPartitionReassignment example)', () => {
    const moving = reassignTo(replicaSet([1, 2, 3]), [4, 5, 6]);
    expect(moving).toEqual({ replicas: [4, 5, 6, 1, 2, 3], adding: [4, 5, 6], removing: [1, 2, 3] });
    expect(originReplicas(moving)).toEqual([1, 2, 3]);
    expect(targetReplicas(moving)).toEqual([4, 5, 6]);
    expect(isBeingReassigned(moving)).toBe(true);
  });

  it('an overlapping target lists the target first (the original order cannot come back, as Kafka notes)', () => {
    expect(reassignTo(replicaSet([1, 2, 3]), [3, 4, 2])).toEqual({ replicas: [3, 4, 2, 1], adding: [4], removing: [1] });
  });

  it('a re-reassignment starts from the original replicas, not from the previous target', () => {
    const first = reassignTo(replicaSet([1, 2]), [3, 4]);
    expect(reassignTo(first, [2, 5])).toEqual({ replicas: [2, 5, 1], adding: [5], removing: [1] });
  });

  it('cancelling (target = origin) returns to the original replicas with nothing adding or removing', () => {
    const moving = reassignTo(replicaSet([1, 2]), [3, 4]);
    const cancelled = reassignTo(moving, originReplicas(moving));
    expect(cancelled).toEqual({ replicas: [1, 2], adding: [], removing: [] });
    expect(isBeingReassigned(cancelled)).toBe(false);
  });

  it('only adding or only removing replicas (replication factor change)', () => {
    expect(reassignTo(replicaSet([1, 2]), [1, 2, 3])).toEqual({ replicas: [1, 2, 3], adding: [3], removing: [] });
    expect(reassignTo(replicaSet([1, 2, 3]), [1])).toEqual({ replicas: [1, 2, 3], adding: [], removing: [2, 3] });
    expect(isBeingReassigned(reassignTo(replicaSet([1, 2]), [1, 2]))).toBe(false);
  });
});
