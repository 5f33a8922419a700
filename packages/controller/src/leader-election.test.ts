import { describe, expect, it } from 'vitest';
import {
  controlledShutdownLeaderElection,
  newPartitionLeaderElection,
  offlinePartitionLeaderElection,
  preferredReplicaLeaderElection,
} from './leader-election.js';

const live = (...ids: number[]) => new Set(ids);

describe('leader election rules', () => {
  it('offline: first live ISR member in assignment order', () => {
    expect(offlinePartitionLeaderElection([1, 2, 3], [3, 2], live(2, 3), false)).toEqual({ leader: 2, isr: [3, 2], unclean: false });
    expect(offlinePartitionLeaderElection([1, 2, 3], [1, 2, 3], live(3), false)).toEqual({ leader: 3, isr: [3], unclean: false });
  });
  it('offline with no live ISR member stays offline unless unclean election is enabled', () => {
    expect(offlinePartitionLeaderElection([1, 2, 3], [1], live(2, 3), false)).toBeNull();
    expect(offlinePartitionLeaderElection([1, 2, 3], [1], live(2, 3), true)).toEqual({ leader: 2, isr: [2], unclean: true });
  });
  it('new partition: first live replica, ISR = live replicas', () => {
    expect(newPartitionLeaderElection([2, 3, 1], live(1, 3))).toEqual({ leader: 3, isr: [3, 1], unclean: false });
    expect(newPartitionLeaderElection([2], live(1))).toBeNull();
  });
  it('preferred: only the first replica', () => {
    expect(preferredReplicaLeaderElection([1, 2], [2, 1], live(1, 2))?.leader).toBe(1);
    expect(preferredReplicaLeaderElection([1, 2], [2], live(1, 2))).toBeNull();
  });
  it('controlled shutdown moves leadership off the stopping broker', () => {
    expect(controlledShutdownLeaderElection([1, 2, 3], [1, 2, 3], live(1, 2, 3), new Set([1]))).toEqual({ leader: 2, isr: [2, 3], unclean: false });
  });
});
