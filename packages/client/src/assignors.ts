/** A member as the group leader sees it: its id and the topics it subscribes to. */
export interface GroupMember {
  memberId: string;
  topics: readonly string[];
}

/** memberId → topic → partitions */
export type GroupAssignment = Map<string, Map<string, number[]>>;

/** Kafka's PartitionAssignor: a name offered in JoinGroup and the leader's assignment function. */
export interface Assignor {
  readonly name: string;
  assign(members: readonly GroupMember[], partitionsPerTopic: ReadonlyMap<string, number>): GroupAssignment;
}

function emptyAssignment(members: readonly GroupMember[]): GroupAssignment {
  return new Map(members.map((m) => [m.memberId, new Map<string, number[]>()]));
}

function add(a: GroupAssignment, memberId: string, topic: string, partition: number): void {
  const byTopic = a.get(memberId)!;
  let ps = byTopic.get(topic);
  if (!ps) byTopic.set(topic, (ps = []));
  ps.push(partition);
}

/**
 * `range` (Kafka's RangeAssignor): per topic, its subscribers sorted by member id each take a contiguous range;
 * the first `partitions % members` get one extra.
 */
export const rangeAssignor: Assignor = {
  name: 'range',
  assign(members, partitionsPerTopic) {
    const result = emptyAssignment(members);
    for (const [topic, count] of [...partitionsPerTopic].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const subscribers = members.filter((m) => m.topics.includes(topic)).map((m) => m.memberId).sort();
      if (subscribers.length === 0) continue;
      const per = Math.floor(count / subscribers.length);
      const extra = count % subscribers.length;
      subscribers.forEach((id, i) => {
        const start = per * i + Math.min(i, extra);
        const length = per + (i < extra ? 1 : 0);
        for (let p = start; p < start + length; p++) add(result, id, topic, p);
      });
    }
    return result;
  },
};

/**
 * `roundrobin` (Kafka's RoundRobinAssignor): all topic-partitions sorted by topic then partition, dealt in turn
 * to the members sorted by id, skipping members that do not subscribe to the partition's topic.
 */
export function roundRobinAssignor(name = 'roundrobin'): Assignor {
  return {
    name,
    assign(members, partitionsPerTopic) {
      const result = emptyAssignment(members);
      const ids = members.map((m) => m.memberId).sort();
      const topicsOf = new Map(members.map((m) => [m.memberId, new Set(m.topics)]));
      let next = 0;
      for (const [topic, count] of [...partitionsPerTopic].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        for (let p = 0; p < count; p++) {
          for (let tries = 0; tries < ids.length; tries++) {
            const id = ids[next % ids.length]!;
            next++;
            if (topicsOf.get(id)!.has(topic)) {
              add(result, id, topic, p);
              break;
            }
          }
        }
      }
      return result;
    },
  };
}

/** Assignors by the names the Reader may offer: Kafka's, plus kafkajs's name for round robin. */
export function assignorByName(name: string): Assignor {
  switch (name) {
    case 'range':
      return rangeAssignor;
    case 'roundrobin':
    case 'RoundRobinAssigner':
      return roundRobinAssignor(name);
    default:
      throw new Error(`unknown group balancer ${name} (range, roundrobin or RoundRobinAssigner)`);
  }
}
