import { describe, expect, it } from 'vitest';
import { assign, type AssignmentStrategyName } from './assignors.js';
import { javaStringHashCode } from './java-hash.js';
import type { ConsumerThreadId } from './topic-count.js';

/** consumerId → topic → streams, as the members registered them. */
type Subscriptions = Record<string, Record<string, number>>;

function run(strategy: AssignmentStrategyName, subs: Subscriptions, partitions: Record<string, number>): string {
  const consumersForTopic = new Map<string, ConsumerThreadId[]>();
  for (const [consumerId, topics] of Object.entries(subs)) {
    for (const [topic, n] of Object.entries(topics)) {
      for (let threadId = 0; threadId < n; threadId++) consumersForTopic.set(topic, [...(consumersForTopic.get(topic) ?? []), { consumerId, threadId }]);
    }
  }
  const partitionsForTopic = new Map(Object.entries(partitions).map(([t, n]) => [t, Array.from({ length: n }, (_, i) => n - 1 - i)]));
  return assign(strategy, { consumersForTopic, partitionsForTopic })
    .map((a) => `${a.topic}:${a.partition}=${a.owner.consumerId}-${a.owner.threadId}`)
    .join(' ');
}

const sorted = (s: string) => s.split(' ').sort().join(' ');

/**
 * Expected results come from a Java transcription of Kafka 0.10.2's RangeAssignor and RoundRobinAssignor
 * (java.lang.String ordering and hashCode), run with `java Ref.java`; the first row is the reference's example.
 */
const CASES: { name: string; strategy: AssignmentStrategyName; subs: Subscriptions; partitions: Record<string, number>; expected: string }[] = [
  { name: 'range: 5 partitions, C1/C2 x 2 streams (reference example)', strategy: 'range', subs: { C1: { t: 2 }, C2: { t: 2 } }, partitions: { t: 5 }, expected: 't:0=C1-0 t:1=C1-0 t:2=C1-1 t:3=C2-0 t:4=C2-1' },
  {
    name: 'range: 12 partitions, 3 consumers',
    strategy: 'range',
    subs: { g_a: { orders: 1 }, g_b: { orders: 1 }, g_c: { orders: 1 } },
    partitions: { orders: 12 },
    expected: 'orders:0=g_a-0 orders:1=g_a-0 orders:2=g_a-0 orders:3=g_a-0 orders:4=g_b-0 orders:5=g_b-0 orders:6=g_b-0 orders:7=g_b-0 orders:8=g_c-0 orders:9=g_c-0 orders:10=g_c-0 orders:11=g_c-0',
  },
  {
    name: 'range: thread ids ordered as strings (c-10 before c-2)',
    strategy: 'range',
    subs: { c: { t: 11 } },
    partitions: { t: 12 },
    expected: 't:0=c-0 t:1=c-0 t:2=c-1 t:3=c-10 t:4=c-2 t:5=c-3 t:6=c-4 t:7=c-5 t:8=c-6 t:9=c-7 t:10=c-8 t:11=c-9',
  },
  {
    name: 'range: two topics, different subscriptions',
    strategy: 'range',
    subs: { C1: { a: 1, b: 2 }, C2: { a: 2 } },
    partitions: { a: 3, b: 5 },
    expected: 'a:0=C1-0 a:1=C2-0 a:2=C2-1 b:0=C1-0 b:1=C1-0 b:2=C1-0 b:3=C1-1 b:4=C1-1',
  },
  {
    name: 'roundrobin: 12 partitions, 3 consumers',
    strategy: 'roundrobin',
    subs: { g_a: { orders: 1 }, g_b: { orders: 1 }, g_c: { orders: 1 } },
    partitions: { orders: 12 },
    expected: 'orders:0=g_a-0 orders:1=g_b-0 orders:2=g_c-0 orders:3=g_a-0 orders:4=g_b-0 orders:5=g_c-0 orders:6=g_a-0 orders:7=g_b-0 orders:8=g_c-0 orders:9=g_a-0 orders:10=g_b-0 orders:11=g_c-0',
  },
  {
    name: 'roundrobin: hash order puts [t,10] and [t,11] first',
    strategy: 'roundrobin',
    subs: { g_a: { t: 1 }, g_b: { t: 1 }, g_c: { t: 1 }, g_d: { t: 1 } },
    partitions: { t: 12 },
    expected: 't:10=g_a-0 t:11=g_b-0 t:0=g_c-0 t:1=g_d-0 t:2=g_a-0 t:3=g_b-0 t:4=g_c-0 t:5=g_d-0 t:6=g_a-0 t:7=g_b-0 t:8=g_c-0 t:9=g_d-0',
  },
  {
    name: 'roundrobin: skips threads not subscribed to the topic (KAFKA-2434)',
    strategy: 'roundrobin',
    subs: { C1: { a: 1, b: 2 }, C2: { a: 2 } },
    partitions: { a: 3, b: 5 },
    expected: 'a:0=C1-0 a:1=C2-0 a:2=C2-1 b:0=C1-0 b:1=C1-1 b:2=C1-0 b:3=C1-1 b:4=C1-0',
  },
];

describe('assignors give Kafka results', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const got = run(c.strategy, c.subs, c.partitions);
      expect(sorted(got)).toBe(sorted(c.expected));
      if (c.strategy === 'roundrobin') expect(got).toBe(c.expected); // also the order of assignment
    });
  }

  it('every partition exactly once, whatever the member count', () => {
    for (const strategy of ['range', 'roundrobin'] as const) {
      for (let members = 1; members <= 13; members++) {
        const subs: Subscriptions = {};
        for (let m = 0; m < members; m++) subs[`m${m}`] = { t: 1 + (m % 3) };
        const owners = run(strategy, subs, { t: 12 }).split(' ').map((s) => s.split('=')[0]);
        expect(owners.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `t:${i}`).sort());
      }
    }
  });

  it('Java String.hashCode', () => {
    expect(javaStringHashCode('[t,0]')).toBe(87540032);
    expect(javaStringHashCode('[orders,11]')).toBe(458862993);
    expect(javaStringHashCode('héllo')).toBe(103094734);
    expect(javaStringHashCode('')).toBe(0);
  });
});
