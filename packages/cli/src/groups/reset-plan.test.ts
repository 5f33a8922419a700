import { describe, expect, it } from 'vitest';
import { preprocessGroupsArgs, resetSpecOf } from '../commands/groups.js';
import { UsageError } from '../usage-error.js';
import { parseDateTime, parseDuration, parseTopicArg, planReset, type PartitionOffsets } from './reset-plan.js';

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

  it("reads Kafka's datetime (UTC without a zone) and ISO durations strictly", () => {
    expect(parseDateTime('2021-03-04T05:06:07.089')).toBe(Date.UTC(2021, 2, 4, 5, 6, 7, 89));
    expect(parseDateTime('2021-03-04T05:06:07.089Z')).toBe(Date.UTC(2021, 2, 4, 5, 6, 7, 89));
    expect(parseDateTime('2021-03-04T05:06:07.000+01:00')).toBe(Date.UTC(2021, 2, 4, 4, 6, 7));
    expect(parseDateTime('2021-03-04T05:06:07-0230')).toBe(Date.UTC(2021, 2, 4, 7, 36, 7));
    for (const bad of ['2021-02-30T00:00:00.000', '2021-03-04', '2021-03-04T25:00:00', 'yesterday']) expect(() => parseDateTime(bad)).toThrow(UsageError);
    expect(parseDuration('PT15M')).toBe(900_000);
    expect(parseDuration('P1DT2H0.5S')).toBe(93_600_500);
    for (const bad of ['P', 'PT', '15M', 'P1W']) expect(() => parseDuration(bad)).toThrow(UsageError);
    expect(parseTopicArg('t')).toEqual({ topic: 't', partitions: null });
    expect(parseTopicArg('t:0,2')).toEqual({ topic: 't', partitions: [0, 2] });
    expect(() => parseTopicArg('t:x')).toThrow(UsageError);
  });

  it('takes exactly one scenario, negative shifts and the optional --state value', () => {
    expect(resetSpecOf({ 'to-earliest': true })).toEqual({ kind: 'earliest' });
    expect(resetSpecOf({ 'shift-by': '-5' })).toEqual({ kind: 'shift', by: -5 });
    expect(resetSpecOf({ 'by-duration': 'PT1S' }, 10_000)).toEqual({ kind: 'datetime', timestamp: 9_000 });
    expect(() => resetSpecOf({})).toThrow(UsageError);
    expect(() => resetSpecOf({ 'to-earliest': true, 'to-latest': true })).toThrow(UsageError);
    expect(preprocessGroupsArgs(['--shift-by', '-5', '--list', '--state', 'stable,Empty', '--describe', '--state', 'g'])).toEqual([
      '--shift-by=-5',
      '--list',
      '--state',
      '--state-filter=stable,Empty',
      '--describe',
      '--state',
      'g',
    ]);
  });
});
