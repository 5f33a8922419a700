/**
 * kafka-consumer-groups' tables, column for column (ConsumerGroupCommand's printf widths: a column is
 * at least its minimum wide and grows with its longest value; missing values print as "-").
 */

export interface OffsetRow {
  group: string;
  topic: string | null;
  partition: number | null;
  current: number | null;
  logEnd: number | null;
  lag: number | null;
  consumerId: string | null;
  host: string | null;
  clientId: string | null;
}

export interface MemberRow {
  group: string;
  consumerId: string;
  /** "" when the member has no static id. */
  groupInstanceId: string;
  host: string;
  clientId: string;
  partitions: { topic: string; partition: number }[];
}

export interface StateRow {
  group: string;
  /** "host:port (id)". */
  coordinator: string;
  assignmentStrategy: string;
  state: string;
  members: number;
}

const dash = (v: string | number | null): string => (v === null ? '-' : String(v));
const width = (min: number, values: readonly string[]): number => Math.max(min, ...values.map((v) => v.length));

/** Kafka's lag: log end minus a committed offset, unknown without either. */
export function lagOf(current: number | null, logEnd: number | null): number | null {
  return current === null || current < 0 || logEnd === null ? null : logEnd - current;
}

/** --describe (--offsets): GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID. */
export function formatOffsets(rows: readonly OffsetRow[]): string {
  const g = width(15, rows.map((r) => r.group));
  const t = width(15, rows.map((r) => dash(r.topic)));
  const c = width(15, rows.map((r) => dash(r.consumerId)));
  const h = width(15, rows.map((r) => dash(r.host)));
  const line = (cols: string[]): string =>
    [cols[0]!.padEnd(g), cols[1]!.padEnd(t), cols[2]!.padEnd(10), cols[3]!.padEnd(15), cols[4]!.padEnd(15), cols[5]!.padEnd(15), cols[6]!.padEnd(c), cols[7]!.padEnd(h), cols[8]!].join(' ');
  return [
    '',
    line(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID']),
    ...rows.map((r) => line([r.group, dash(r.topic), dash(r.partition), dash(r.current), dash(r.logEnd), dash(r.lag), dash(r.consumerId), dash(r.host), dash(r.clientId)])),
  ].join('\n');
}

/** --describe --members [--verbose]: GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS [ASSIGNMENT]. */
export function formatMembers(rows: readonly MemberRow[], verbose: boolean): string {
  const g = width(15, rows.map((r) => r.group));
  const c = width(15, rows.map((r) => r.consumerId));
  const i = width(17, rows.map((r) => r.groupInstanceId));
  const h = width(15, rows.map((r) => r.host));
  const cl = width(15, rows.map((r) => r.clientId));
  const withInstance = rows.some((r) => r.groupInstanceId !== '');
  const line = (cols: string[], assignment: string): string => {
    const [group, consumer, instance, host, client, count] = cols as [string, string, string, string, string, string];
    const fixed = withInstance ? [group.padEnd(g), consumer.padEnd(c), instance.padEnd(i), host.padEnd(h), client.padEnd(cl), count.padEnd(15)] : [group.padEnd(g), consumer.padEnd(c), host.padEnd(h), client.padEnd(cl), count.padEnd(15)];
    return `${fixed.join(' ')} ${verbose ? assignment : ''}`;
  };
  const assignment = (r: MemberRow): string => {
    if (r.partitions.length === 0) return '-';
    const byTopic = new Map<string, number[]>();
    for (const p of r.partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
    return [...byTopic].map(([topic, ps]) => `${topic}(${[...ps].sort((a, b) => a - b).join(',')})`).sort().join(', ');
  };
  return [
    '',
    line(['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS'], 'ASSIGNMENT'),
    ...rows.map((r) => line([r.group, r.consumerId, r.groupInstanceId, r.host, r.clientId, String(r.partitions.length)], assignment(r))),
  ].join('\n');
}

/** --describe --state: GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS. */
export function formatState(r: StateRow): string {
  const g = Math.max(25, r.coordinator.length); // Kafka sizes the first column by the coordinator's text
  const line = (cols: string[]): string => [cols[0]!.padEnd(g), cols[1]!.padEnd(25), cols[2]!.padEnd(20), cols[3]!.padEnd(15), cols[4]!].join(' ');
  return ['', line(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS']), line([r.group, r.coordinator, r.assignmentStrategy, r.state, String(r.members)])].join('\n');
}

/** --list --state: GROUP STATE. */
export function formatGroupStates(rows: readonly { group: string; state: string }[]): string {
  const g = width(15, rows.map((r) => r.group));
  return [`${'GROUP'.padEnd(g)} STATE`, ...rows.map((r) => `${r.group.padEnd(g)} ${r.state}`)].join('\n');
}

/** --reset-offsets: GROUP TOPIC PARTITION NEW-OFFSET. */
export function formatResetPlan(group: string, plan: readonly { topic: string; partition: number; offset: number }[]): string {
  const line = (cols: string[]): string => [cols[0]!.padEnd(30), cols[1]!.padEnd(30), cols[2]!.padEnd(10), cols[3]!.padEnd(15)].join(' ');
  return ['', line(['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET']), ...plan.map((p) => line([group, p.topic, String(p.partition), String(p.offset)]))].join('\n');
}
