import { describe, expect, it } from 'vitest';
import { assignReplicasToBrokers } from './replica-assignment.js';

describe("Kafka's rack-unaware replica assignment", () => {
  it('matches the example from AdminUtils (5 brokers, start 0, shift 0, RF 3)', () => {
    const a = assignReplicasToBrokers([0, 1, 2, 3, 4], 10, 3, { startIndex: 0, shift: 0 });
    expect(Object.fromEntries(a)).toEqual({
      0: [0, 1, 2], 1: [1, 2, 3], 2: [2, 3, 4], 3: [3, 4, 0], 4: [4, 0, 1],
      5: [0, 2, 3], 6: [1, 3, 4], 7: [2, 4, 0], 8: [3, 0, 1], 9: [4, 1, 2],
    });
  });

  it('spreads leaders evenly and never repeats a broker within a partition', () => {
    const a = assignReplicasToBrokers([1, 2, 3], 12, 3);
    const leaders = new Map<number, number>();
    for (const replicas of a.values()) {
      expect(new Set(replicas).size).toBe(3);
      leaders.set(replicas[0]!, (leaders.get(replicas[0]!) ?? 0) + 1);
    }
    expect([...leaders.values()]).toEqual([4, 4, 4]);
  });

  it('refuses impossible requests with Kafka error codes', () => {
    expect(() => assignReplicasToBrokers([1], 1, 2)).toThrow(/larger than available brokers/);
    expect(() => assignReplicasToBrokers([1], 0, 1)).toThrow(/larger than 0/);
  });
});
