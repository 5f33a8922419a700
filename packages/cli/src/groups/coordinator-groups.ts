import type { Admin, GroupDescription, GroupOffset } from '@gregor/client';
import { CONSUMER_PROTOCOL_TYPE } from '@gregor/client';
import { lagOf, type MemberRow, type OffsetRow, type StateRow } from './group-tables.js';
import { logEndOffsets, tpKey } from './partition-offsets.js';

/** Broker-side groups (kcat -G, kafkajs, Java consumers, gregor's Reader) as kafka-consumer-groups --bootstrap-server shows them. */

export interface CoordinatorGroupView {
  description: GroupDescription;
  committed: GroupOffset[];
  /** False for a group the coordinator does not know (Dead, no offsets): "does not exist". */
  exists: boolean;
}

/** Coordinator states in which nobody commits: the only ones a reset is allowed in (as Kafka). */
export const INACTIVE_STATES: ReadonlySet<string> = new Set(['Empty', 'Dead']);

export async function viewGroup(admin: Admin, group: string): Promise<CoordinatorGroupView> {
  const [[description], committed] = await Promise.all([admin.describeGroups([group]), admin.fetchOffsets(group)]);
  return { description: description!, committed, exists: !(description!.state === 'Dead' && committed.length === 0) };
}

/** Consumer groups only (Kafka's listConsumerGroups): protocol type "consumer", or "" for groups that only hold offsets. */
export function isConsumerGroup(protocolType: string): boolean {
  return protocolType === CONSUMER_PROTOCOL_TYPE || protocolType === '';
}

/**
 * kafka-consumer-groups --describe rows: each member's assigned partitions (members with most partitions
 * first), then the committed partitions nobody is assigned, with "-" for the consumer.
 */
export async function offsetRows(admin: Admin, view: CoordinatorGroupView): Promise<OffsetRow[]> {
  const group = view.description.groupId;
  const committed = new Map(view.committed.map((c) => [tpKey(c.topic, c.partition), c.offset]));
  const members = view.description.members.filter((m) => (m.assignment ?? []).length > 0).sort((a, b) => b.assignment!.length - a.assignment!.length);
  const assigned = members.flatMap((m) => m.assignment!);
  const unassigned = view.committed.filter((c) => !assigned.some((a) => a.topic === c.topic && a.partition === c.partition));
  const ends = await logEndOffsets(admin, [...assigned, ...unassigned]);
  const row = (topic: string, partition: number, consumer: { consumerId: string; host: string; clientId: string } | null): OffsetRow => {
    const current = committed.get(tpKey(topic, partition)) ?? null;
    const logEnd = ends.get(tpKey(topic, partition)) ?? null;
    return { group, topic, partition, current, logEnd, lag: lagOf(current, logEnd), consumerId: consumer?.consumerId ?? null, host: consumer?.host ?? null, clientId: consumer?.clientId ?? null };
  };
  return [
    ...members.flatMap((m) => m.assignment!.map((a) => row(a.topic, a.partition, { consumerId: m.memberId, host: m.clientHost, clientId: m.clientId }))),
    ...unassigned.map((c) => row(c.topic, c.partition, null)),
  ];
}

export function memberRows(view: CoordinatorGroupView): MemberRow[] {
  return view.description.members.map((m) => ({
    group: view.description.groupId,
    consumerId: m.memberId,
    groupInstanceId: m.groupInstanceId ?? '',
    host: m.clientHost,
    clientId: m.clientId,
    partitions: m.assignment ?? [],
  }));
}

export async function stateRow(admin: Admin, view: CoordinatorGroupView): Promise<StateRow> {
  const d = view.description;
  const broker = (await admin.describeCluster()).brokers.find((b) => b.nodeId === d.coordinator);
  return {
    group: d.groupId,
    coordinator: `${broker ? `${broker.host}:${broker.port}` : '?'} (${d.coordinator})`,
    assignmentStrategy: d.protocol,
    state: d.state,
    members: d.members.length,
  };
}
