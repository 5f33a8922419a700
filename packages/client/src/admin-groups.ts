import { ErrorCode, errorName, GregorError, KafkaProtocolError } from '@gregor/common';
import { DeleteGroups, DescribeGroups, ListGroups, OffsetCommit, OffsetFetch, type OffsetCommitRequest } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment } from './consumer-protocol.js';
import { COORDINATOR_ERRORS, findGroupCoordinator } from './group-coordinator-lookup.js';
import { retry } from '@gregor/net';

/** Broker-side consumer groups (the group coordinator, offsets in __consumer_offsets), as Kafka's AdminClient sees them. */

export interface ListedGroup {
  groupId: string;
  /** "consumer" for Kafka consumers; "" for groups that only hold offsets. */
  protocolType: string;
  /** The broker that listed it (its coordinator). */
  coordinator: number;
}

export interface GroupListing {
  groups: ListedGroup[];
  /** Brokers that did not answer: the groups they coordinate are missing from `groups`. */
  errors: { broker: number; error: GregorError }[];
}

export interface GroupMemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Decoded from the consumer protocol's Assignment; null when the bytes are another protocol's. */
  assignment: { topic: string; partition: number }[] | null;
}

export interface GroupDescription {
  groupId: string;
  /** Empty, PreparingRebalance, CompletingRebalance, Stable, or Dead (also for a group the coordinator does not know). */
  state: string;
  protocolType: string;
  /** The chosen assignor for consumer groups. */
  protocol: string;
  coordinator: number;
  members: GroupMemberDescription[];
}

export interface GroupOffset {
  topic: string;
  partition: number;
  /** The committed next offset to read. */
  offset: number;
  metadata: string;
}

export interface GroupResult {
  groupId: string;
  error: KafkaProtocolError | null;
}

/** Errors after which a group request is asked again (of a coordinator looked up afresh). */
const GROUP_RETRY_ERRORS: ReadonlySet<number> = new Set([...COORDINATOR_ERRORS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]);
const GROUP_RETRY = { retries: 10, retryBackoffMs: 100, retryBackoffMaxMs: 1000 };

function groupError(groupId: string, code: number, what: string): KafkaProtocolError {
  return new KafkaProtocolError(code, `${what} for group ${groupId}: ${errorName(code)}`);
}

/** Runs `op` against the group's coordinator; coordinator errors look it up again and retry. */
async function withCoordinator<T>(client: KafkaClient, groupId: string, op: (coordinator: number) => Promise<T>): Promise<T> {
  return retry(async () => {
    const coordinator = await findGroupCoordinator(client, groupId);
    return op(coordinator);
  }, { ...GROUP_RETRY, onRetry: () => client.refreshMetadata([]).then(() => undefined, () => undefined) });
}

function throwIfRetriable(groupId: string, code: number, what: string): void {
  if (GROUP_RETRY_ERRORS.has(code)) throw groupError(groupId, code, what);
}

/** ListGroups asked of every broker (each lists the groups it coordinates); a broker that fails is reported, not fatal. */
export async function listGroups(client: KafkaClient): Promise<GroupListing> {
  const metadata = await client.refreshMetadata([]);
  const listing: GroupListing = { groups: [], errors: [] };
  await Promise.all(
    metadata.brokers.map(async (b) => {
      try {
        const groups = await retry(async () => {
          const res = await client.sendTo(b.nodeId, ListGroups, {});
          if (res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `ListGroups to broker ${b.nodeId}: ${errorName(res.errorCode)}`);
          return res.groups;
        }, { retries: 5, retryBackoffMs: 100, retryBackoffMaxMs: 500 });
        listing.groups.push(...groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, coordinator: b.nodeId })));
      } catch (error) {
        if (!(error instanceof GregorError)) throw error;
        listing.errors.push({ broker: b.nodeId, error });
      }
    }),
  );
  listing.groups.sort((a, b) => a.groupId.localeCompare(b.groupId));
  listing.errors.sort((a, b) => a.broker - b.broker);
  return listing;
}

function describeMember(protocolType: string, m: { memberId: string; groupInstanceId: string | null; clientId: string; clientHost: string; memberAssignment: Buffer }): GroupMemberDescription {
  let assignment: GroupMemberDescription['assignment'] = null;
  if (protocolType === CONSUMER_PROTOCOL_TYPE) {
    try {
      assignment = [...decodeAssignment(m.memberAssignment).partitions]
        .flatMap(([topic, ps]) => ps.map((partition) => ({ topic, partition })))
        .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
    } catch {
      // A client with its own assignment format: unknown.
    }
  }
  return { memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost, assignment };
}

/** DescribeGroups from each group's coordinator. An unknown group comes back Dead, as Kafka answers. */
export async function describeGroups(client: KafkaClient, groupIds: readonly string[]): Promise<GroupDescription[]> {
  return Promise.all(
    groupIds.map((groupId) =>
      withCoordinator(client, groupId, async (coordinator) => {
        const res = await client.sendTo(coordinator, DescribeGroups, { groups: [groupId], includeAuthorizedOperations: false });
        const g = res.groups.find((x) => x.groupId === groupId);
        if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `DescribeGroups answered without group ${groupId}`);
        throwIfRetriable(groupId, g.errorCode, 'DescribeGroups');
        if (g.errorCode !== ErrorCode.NONE) throw groupError(groupId, g.errorCode, 'DescribeGroups');
        return { groupId, state: g.groupState, protocolType: g.protocolType, protocol: g.protocolData, coordinator, members: g.members.map((m) => describeMember(g.protocolType, m)) };
      }),
    ),
  );
}

/** OffsetFetch of every partition the group has committed (partitions without a commit are left out). */
export async function fetchOffsets(client: KafkaClient, groupId: string): Promise<GroupOffset[]> {
  return withCoordinator(client, groupId, async (coordinator) => {
    const res = await client.sendTo(coordinator, OffsetFetch, { groupId, topics: null });
    throwIfRetriable(groupId, res.errorCode, 'OffsetFetch');
    if (res.errorCode !== ErrorCode.NONE) throw groupError(groupId, res.errorCode, 'OffsetFetch');
    const out: GroupOffset[] = [];
    for (const t of res.topics) {
      for (const p of t.partitions) {
        throwIfRetriable(groupId, p.errorCode, 'OffsetFetch');
        if (p.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(p.errorCode, `OffsetFetch ${t.name}-${p.partitionIndex} for group ${groupId}: ${errorName(p.errorCode)}`);
        if (p.committedOffset >= 0) out.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.metadata ?? '' });
      }
    }
    return out.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  });
}

/** An OffsetCommit outside any generation (generation -1, no member id): an admin's offset reset. */
export function offsetResetRequest(groupId: string, offsets: readonly { topic: string; partition: number; offset: number }[]): OffsetCommitRequest {
  const byTopic = new Map<string, { partition: number; offset: number }[]>();
  for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o]);
  return {
    groupId,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1,
    topics: [...byTopic].map(([name, list]) => ({
      name,
      partitions: list.map((o) => ({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' })),
    })),
  };
}

/**
 * Commits offsets outside any generation (generation -1, no member id), as AdminClient's
 * alterConsumerGroupOffsets does: the coordinator takes it only while the group has no members
 * (UNKNOWN_MEMBER_ID otherwise, which is thrown, not retried).
 */
export async function resetOffsets(client: KafkaClient, groupId: string, offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
  if (offsets.length === 0) return;
  await withCoordinator(client, groupId, async (coordinator) => {
    const res = await client.sendTo(coordinator, OffsetCommit, offsetResetRequest(groupId, offsets));
    for (const t of res.topics) {
      for (const p of t.partitions) {
        throwIfRetriable(groupId, p.errorCode, 'OffsetCommit');
        if (p.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(p.errorCode, `OffsetCommit ${t.name}-${p.partitionIndex} for group ${groupId}: ${errorName(p.errorCode)}`);
      }
    }
  });
}

/** DeleteGroups at each group's coordinator: NON_EMPTY_GROUP while it has members, GROUP_ID_NOT_FOUND when unknown. */
export async function deleteGroups(client: KafkaClient, groupIds: readonly string[]): Promise<GroupResult[]> {
  return Promise.all(
    groupIds.map((groupId) =>
      withCoordinator(client, groupId, async (coordinator) => {
        const res = await client.sendTo(coordinator, DeleteGroups, { groupsNames: [groupId] });
        const r = res.results.find((x) => x.groupId === groupId);
        const code = r ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
        throwIfRetriable(groupId, code, 'DeleteGroups');
        return { groupId, error: code === ErrorCode.NONE ? null : groupError(groupId, code, 'DeleteGroups') };
      }),
    ),
  );
}
