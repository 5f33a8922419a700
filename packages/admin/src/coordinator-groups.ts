import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, offsetResetRequest, retry } from '@gregor/client';
import { ErrorCode, errorName, KafkaProtocolError } from '@gregor/common';
import { DescribeGroups, FindCoordinator, ListGroups, OffsetCommit, OffsetFetch, type DescribedGroup } from '@gregor/protocol';
import type { AdminContext } from './admin-context.js';
import { brokerConnection } from './broker-connection.js';
import { AdminError } from './errors.js';

/** Broker-side consumer groups (the group coordinator, offsets in __consumer_offsets), over the Kafka protocol. */
const OFFSETS_TOPIC = '__consumer_offsets';
/** Commit errors that mean the group has members (Kafka answers them to a commit outside any generation). */
const ACTIVE_GROUP_ERRORS: ReadonlySet<number> = new Set([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION, ErrorCode.REBALANCE_IN_PROGRESS]);
const RETRY = { retries: 10, retryBackoffMs: 100, retryBackoffMaxMs: 1000 };
/** A listing waits less for a broker still loading its groups: its absence is reported instead. */
const LIST_RETRY = { retries: 3, retryBackoffMs: 100, retryBackoffMaxMs: 500 };

export interface CoordinatorGroupEntry {
  group: string;
  kind: 'coordinator';
  state: string;
  protocolType: string;
  coordinator: number;
}

export interface CoordinatorMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Decoded from the Java consumer Assignment when the protocol type is "consumer" and the group is Stable. */
  assignment: { topic: string; partitions: number[] }[] | null;
}

export interface CoordinatorGroup {
  group: string;
  state: string;
  protocolType: string;
  protocol: string;
  coordinator: number;
  members: CoordinatorMember[];
  /** Committed next offsets; -1 entries (nothing committed) are left out. */
  committed: { topic: string; partition: number; offset: number }[];
}

export interface CoordinatorGroupListing {
  groups: CoordinatorGroupEntry[];
  /** Brokers whose groups are missing from `groups` because they did not answer. */
  unavailable: { broker: number; error: string }[];
}

/**
 * The groups every live broker coordinates (ListGroups), with their states (DescribeGroups to the same
 * broker). A broker that does not answer is reported, not fatal: the others' groups are still listed.
 */
export async function listCoordinatorGroups(ctx: AdminContext): Promise<CoordinatorGroupListing> {
  // No __consumer_offsets: no broker coordinates anything yet (and asking would not create it).
  if (!ctx.server.metadataCache.contains(OFFSETS_TOPIC)) return { groups: [], unavailable: [] };
  const listing: CoordinatorGroupListing = { groups: [], unavailable: [] };
  await Promise.all(
    ctx.server.metadataCache.aliveBrokers().map(async (b) => {
      try {
        listing.groups.push(...(await groupsOf(ctx, b.id)));
      } catch (error) {
        listing.unavailable.push({ broker: b.id, error: (error as Error).message });
      }
    }),
  );
  listing.groups.sort((a, b) => a.group.localeCompare(b.group) || a.coordinator - b.coordinator);
  listing.unavailable.sort((a, b) => a.broker - b.broker);
  return listing;
}

async function groupsOf(ctx: AdminContext, brokerId: number): Promise<CoordinatorGroupEntry[]> {
  const conn = brokerConnection(ctx, brokerId);
  const listed = await retry(async () => {
    const res = await conn.send(ListGroups, {});
    if (res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `ListGroups to broker ${brokerId} answered ${errorName(res.errorCode)}`);
    return res.groups;
  }, LIST_RETRY);
  if (listed.length === 0) return [];
  const described = await conn.send(DescribeGroups, { groups: listed.map((g) => g.groupId), includeAuthorizedOperations: false });
  const states = new Map(described.groups.map((g) => [g.groupId, g.errorCode === ErrorCode.NONE ? g.groupState : 'Unknown']));
  return listed.map((g) => ({ group: g.groupId, kind: 'coordinator', state: states.get(g.groupId) ?? 'Unknown', protocolType: g.protocolType, coordinator: brokerId }));
}

/** The group's coordinator (FindCoordinator asked of this broker), retried while it is not available. */
export async function findCoordinator(ctx: AdminContext, group: string): Promise<number> {
  return retry(async () => {
    const res = await brokerConnection(ctx, ctx.server.config.brokerId).send(FindCoordinator, { key: group, keyType: 0 });
    if (res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `FindCoordinator for group ${group}: ${res.errorMessage ?? ''}`);
    return res.nodeId;
  }, RETRY);
}

/** Runs `op` against the group's coordinator, looking it up again after a coordinator move. */
async function withCoordinator<T>(ctx: AdminContext, group: string, op: (coordinator: number) => Promise<T>): Promise<T> {
  return retry(async () => {
    const coordinator = await findCoordinator(ctx, group);
    return op(coordinator);
  }, RETRY);
}

/** A coordinator group, or null when the coordinator knows neither the group nor any offsets of it. */
export async function describeCoordinatorGroup(ctx: AdminContext, group: string): Promise<CoordinatorGroup | null> {
  if (!ctx.server.metadataCache.contains(OFFSETS_TOPIC)) return null;
  return withCoordinator(ctx, group, async (coordinator) => {
    const conn = brokerConnection(ctx, coordinator);
    const [described, fetched] = await Promise.all([
      conn.send(DescribeGroups, { groups: [group], includeAuthorizedOperations: false }),
      conn.send(OffsetFetch, { groupId: group, topics: null }),
    ]);
    const d = described.groups.find((g) => g.groupId === group);
    if (!d) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeGroups answered without group ${group}`);
    if (d.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(d.errorCode, `DescribeGroups for group ${group}`);
    if (fetched.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(fetched.errorCode, `OffsetFetch for group ${group}`);
    const committed = fetched.topics.flatMap((t) =>
      t.partitions.filter((p) => p.errorCode === ErrorCode.NONE && p.committedOffset >= 0).map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset })),
    );
    if (d.groupState === 'Dead' && committed.length === 0) return null;
    return { group, state: d.groupState, protocolType: d.protocolType, protocol: d.protocolData, coordinator, members: d.members.map((m) => member(d, m)), committed };
  });
}

function member(group: DescribedGroup, m: DescribedGroup['members'][number]): CoordinatorMember {
  let assignment: CoordinatorMember['assignment'] = null;
  if (group.protocolType === CONSUMER_PROTOCOL_TYPE && group.groupState === 'Stable') {
    try {
      assignment = [...decodeAssignment(m.memberAssignment).partitions].map(([topic, partitions]) => ({ topic, partitions: [...partitions].sort((a, b) => a - b) }));
    } catch {
      // Bytes that are not a consumer Assignment (a client with its own format): shown as unknown.
    }
  }
  return { memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost, assignment };
}

/** OffsetCommit outside any generation (-1, ""): the coordinator accepts it only while the group is Empty. */
export async function commitCoordinatorOffsets(ctx: AdminContext, group: string, offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
  if (offsets.length === 0) return;
  await withCoordinator(ctx, group, async (coordinator) => {
    const res = await brokerConnection(ctx, coordinator).send(OffsetCommit, offsetResetRequest(group, offsets));
    for (const t of res.topics) {
      for (const p of t.partitions) {
        // Members joined between the state check and the commit: not retried, the group is active.
        if (ACTIVE_GROUP_ERRORS.has(p.errorCode)) throw groupNotEmpty(group, `it got members while its offsets were being reset (${errorName(p.errorCode)})`);
        if (p.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(p.errorCode, `OffsetCommit ${t.name}-${p.partitionIndex} for group ${group}`);
      }
    }
  });
}

/** 409: offsets of a group with members are theirs to commit. */
export function groupNotEmpty(group: string, why: string): AdminError {
  return new AdminError('GREGOR_ERR_GROUP_NOT_EMPTY', `Consumer group '${group}' is active: ${why}. Stop its consumers before resetting offsets.`, ErrorCode.NON_EMPTY_GROUP);
}
