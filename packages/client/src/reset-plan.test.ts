import { describe, expect, it } from 'vitest';
import { planReset, type PartitionOffsets } from './reset-plan.js';

const parts = [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }];
const offsets = (p: { partition: number }): PartitionOffsets => (p.partition === 0 ? { logStart: 10, logEnd: 100, committed: 50, atTime: 70 } : { logStart: 0, logEnd: 5, committed: null, atTime: -1 });

describe('reset-offsets plan', () => {
  it('computes every scenario as kafka-consumer-groups does', () => {
    const plan = (spec: Parameters<typeof planReset>[1]) => planReset(parts, spec, offsets).plan.map((p) => p.offset);
    expect(plan({ kind: 'earliest' })).toEqual([10, 0]);
    expect(plan({ kind: 'latest' })).toEqual([100, 5]);
    expect(plan({ kind: 'current' })).toEqual([50, 5]);
    expect(plan({ kind: 'offset', offset: 3 })).toEqual([10, 3]); // clamped up to the log start
    expect(plan({ kind: 'datetime', timestamp: 1 })).toEqual([70, 5]); // nothing that new: the log end
    const { plan: shifted, warnings } = planReset([parts[0]!], { kind: 'shift', by: 80 }, offsets);
    expect(shifted[0]!.offset).toBe(100);
    expect(warnings[0]).toContain('New offset (130) is higher than latest offset for topic partition t-0. Value will be set to 100');
    expect(() => planReset(parts, { kind: 'shift', by: -1 }, offsets)).toThrow('Cannot shift offset for partition t-1 since there is no current committed offset');
  });
});
