import { ErrorCode, type Logger } from '@gregor/common';
import type { OffsetCommitRequest, OffsetCommitResponseTopic, OffsetFetchResponseTopic } from '@gregor/protocol';
import type { GroupCoordinatorConfig } from './coordinator-config.js';
import type { GroupCoordinatorDeps } from './coordinator-deps.js';
import { GroupMetadata, offsetKey } from './group-metadata.js';
import type { GroupMetadataManager, TopicPartitionOffset } from './group-metadata-manager.js';
import type { GroupRebalance } from './group-rebalance.js';

/**
 * Committed offsets (Kafka 2.4's handleCommitOffsets, handleFetchOffsets, handleDeleteOffsets and the offsets
 * expiration): commits are written to __consumer_offsets through the GroupMetadataManager (which also loads
 * them when this broker becomes leader of an offsets partition); offsets of empty groups expire after
 * offsets.retention.minutes, checked on a timer owned here.
 */
export class GroupOffsets {
  readonly #d: GroupCoordinatorDeps;
  readonly #config: GroupCoordinatorConfig;
  readonly #manager: GroupMetadataManager;
  readonly #logger: Logger;
  readonly #rebalance: GroupRebalance;
  #expiryTimer: NodeJS.Timeout | undefined;

  constructor(deps: GroupCoordinatorDeps, rebalance: GroupRebalance) {
    this.#d = deps;
    this.#config = deps.config;
    this.#manager = deps.manager;
    this.#logger = deps.logger;
    this.#rebalance = rebalance;
  }

  startExpiry(): void {
    this.#expiryTimer = setInterval(() => void this.#expireOffsets(), this.#config.offsetsRetentionCheckIntervalMs);
    this.#expiryTimer.unref();
  }

  stopExpiry(): void {
    clearInterval(this.#expiryTimer);
  }

  // ------------------------------------------------------------- OffsetCommit

  async handleCommitOffsets(req: OffsetCommitRequest): Promise<OffsetCommitResponseTopic[]> {
    const all = (code: number): OffsetCommitResponseTopic[] =>
      req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })) }));
    const status = this.#d.groupStatusError(req.groupId);
    if (status !== ErrorCode.NONE) return all(status);
    let group = this.#manager.getGroup(req.groupId);
    if (!group) {
      if (req.generationId >= 0) return all(ErrorCode.UNKNOWN_MEMBER_ID);
      // A commit outside any generation creates an offsets-only group.
      group = this.#manager.addGroup(new GroupMetadata(req.groupId, 'Empty'));
    }
    const code = this.#commitError(group, req);
    if (code !== ErrorCode.NONE) return all(code);
    const now = Date.now();
    const tooLarge = new Set<string>();
    const offsets: TopicPartitionOffset[] = [];
    for (const t of req.topics) {
      for (const p of t.partitions) {
        const metadata = p.committedMetadata ?? '';
        if (Buffer.byteLength(metadata) > this.#config.offsetMetadataMaxBytes) {
          tooLarge.add(offsetKey(t.name, p.partitionIndex));
          continue;
        }
        offsets.push({
          topic: t.name,
          partition: p.partitionIndex,
          value: { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata, commitTimestamp: now, expireTimestamp: -1 },
        });
      }
    }
    const stored = await this.#manager.storeOffsets(group, offsets);
    return req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: tooLarge.has(offsetKey(t.name, p.partitionIndex)) ? ErrorCode.OFFSET_METADATA_TOO_LARGE : stored,
      })),
    }));
  }

  #commitError(group: GroupMetadata, req: OffsetCommitRequest): number {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (group.isStaticMemberFenced(req.memberId, req.groupInstanceId)) return ErrorCode.FENCED_INSTANCE_ID;
    if (req.generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
    if (group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
    const member = group.members.get(req.memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    this.#rebalance.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
    return ErrorCode.NONE;
  }

  // -------------------------------------------------------------- OffsetFetch

  /** Committed offsets; `topics` null = everything the group committed. Unknown ones are -1 with no error. */
  handleFetchOffsets(groupId: string, topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): { errorCode: number; topics: OffsetFetchResponseTopic[] } {
    const status = this.#d.groupStatusError(groupId, false);
    const group = status === ErrorCode.NONE ? this.#manager.getGroup(groupId) : undefined;
    const entry = (partitionIndex: number, topic: string, errorCode: number) => {
      const o = group?.offsets.get(offsetKey(topic, partitionIndex));
      return {
        partitionIndex,
        committedOffset: errorCode === ErrorCode.NONE && o ? o.value.offset : -1,
        committedLeaderEpoch: errorCode === ErrorCode.NONE && o ? o.value.leaderEpoch : -1,
        metadata: errorCode === ErrorCode.NONE && o ? o.value.metadata : '',
        errorCode,
      };
    };
    if (topics === null) {
      if (status !== ErrorCode.NONE) return { errorCode: status, topics: [] };
      const byTopic = new Map<string, number[]>();
      for (const o of group?.offsets.values() ?? []) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o.partition]);
      return {
        errorCode: ErrorCode.NONE,
        topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps.sort((a, b) => a - b).map((p) => entry(p, name, ErrorCode.NONE)) })),
      };
    }
    return { errorCode: status, topics: topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => entry(p, t.name, status)) })) };
  }

  // ------------------------------------------------------------- OffsetDelete

  /**
   * OffsetDelete (KIP-496, Kafka's handleDeleteOffsets): an empty group loses the offsets asked for; an active consumer
   * group only those of topics it does not subscribe to (GROUP_SUBSCRIBED_TO_TOPIC for the others); any other active
   * group is NON_EMPTY_GROUP. Deleted offsets are tombstoned in __consumer_offsets, so they stay deleted after a
   * coordinator move; an empty group left without offsets is removed too. A group error leaves `partitions` empty.
   */
  async handleDeleteOffsets(
    groupId: string,
    partitions: readonly { topic: string; partition: number }[],
  ): Promise<{ errorCode: number; partitions: { topic: string; partition: number; errorCode: number }[] }> {
    const status = this.#d.groupStatusError(groupId);
    if (status !== ErrorCode.NONE) return { errorCode: status, partitions: [] };
    const group = this.#manager.getGroup(groupId);
    if (!group || group.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, partitions: [] };
    let eligible: { topic: string; partition: number }[];
    const subscribed: { topic: string; partition: number }[] = [];
    if (group.is('Empty')) {
      eligible = [...partitions];
    } else if (group.isConsumerGroup()) {
      eligible = [];
      for (const tp of partitions) (group.isSubscribedToTopic(tp.topic) ? subscribed : eligible).push(tp);
    } else {
      return { errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] };
    }
    let code: number = ErrorCode.NONE;
    if (eligible.length > 0) {
      const doomed = [...new Map(eligible.map((tp) => [offsetKey(tp.topic, tp.partition), tp])).entries()].filter(([k]) => group.offsets.has(k));
      const keys = new Set(doomed.map(([k]) => k));
      const removeGroup = group.is('Empty') && [...group.offsets.keys()].every((k) => keys.has(k));
      code = await this.#manager.removeGroupRecords(groupId, removeGroup, doomed.map(([, tp]) => tp));
      if (code === ErrorCode.NONE) {
        for (const k of keys) group.offsets.delete(k);
        if (removeGroup && group.is('Empty') && group.members.size === 0 && group.offsets.size === 0) {
          group.transitionTo('Dead');
          this.#manager.removeGroup(groupId);
        }
        this.#logger.info({ group: groupId, offsets: doomed.length, groupRemoved: removeGroup }, 'deleted committed offsets');
      }
    }
    return {
      errorCode: ErrorCode.NONE,
      partitions: [
        ...eligible.map((tp) => ({ ...tp, errorCode: code })),
        ...subscribed.map((tp) => ({ ...tp, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC })),
      ],
    };
  }

  /** Offsets of empty groups older than offsets.retention.minutes are removed; a group left with nothing goes too. */
  async #expireOffsets(): Promise<void> {
    const now = Date.now();
    for (const group of this.#manager.allGroups()) {
      if (!group.is('Empty')) continue;
      const expired = [...group.offsets.values()].filter((o) => now - o.value.commitTimestamp > this.#config.offsetsRetentionMs);
      if (expired.length === 0) continue;
      const removeGroup = expired.length === group.offsets.size;
      const code = await this.#manager.removeGroupRecords(group.groupId, removeGroup, expired);
      if (code !== ErrorCode.NONE) continue;
      for (const o of expired) group.offsets.delete(offsetKey(o.topic, o.partition));
      if (removeGroup && group.is('Empty') && group.members.size === 0) {
        group.transitionTo('Dead');
        this.#manager.removeGroup(group.groupId);
      }
      this.#logger.info({ group: group.groupId, offsets: expired.length }, 'expired committed offsets');
    }
  }
}
