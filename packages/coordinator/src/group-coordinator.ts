import { ErrorCode, type Logger } from '@gregor/common';
import type {
  DescribedGroup,
  JoinGroupRequest,
  JoinGroupResponse,
  ListedGroup,
  MemberIdentity,
  MemberResponse,
  OffsetCommitRequest,
  OffsetCommitResponseTopic,
  OffsetFetchResponseTopic,
  SyncGroupRequest,
  SyncGroupResponse,
} from '@gregor/protocol';
import type { GroupCoordinatorConfig } from './coordinator-config.js';
import type { GroupCoordinatorDeps } from './coordinator-deps.js';
import { GroupMetadataManager } from './group-metadata-manager.js';
import { GroupMembership, type JoinContext } from './group-membership.js';
import { GroupOffsets } from './group-offsets.js';
import { GroupRebalance } from './group-rebalance.js';
import type { OffsetsTopicLog } from './offsets-topic-log.js';

export type { JoinContext } from './group-membership.js';

/** Authorized operations are not computed; Kafka's "not requested" value. */
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/**
 * The broker-side group coordinator (Kafka 2.4's GroupCoordinator): answers the group APIs for the groups whose
 * __consumer_offsets partition this broker leads. Membership and rebalances are in GroupMembership and
 * GroupRebalance, committed offsets in GroupOffsets; offsets and group records go to `__consumer_offsets`
 * through the GroupMetadataManager.
 */
export class GroupCoordinator {
  readonly config: GroupCoordinatorConfig;
  readonly manager: GroupMetadataManager;
  #active = false;
  readonly #rebalance: GroupRebalance;
  readonly #membership: GroupMembership;
  readonly #offsets: GroupOffsets;

  constructor(config: GroupCoordinatorConfig, log: OffsetsTopicLog, logger: Logger) {
    this.config = config;
    this.manager = new GroupMetadataManager(config, log, logger);
    const deps: GroupCoordinatorDeps = {
      config,
      manager: this.manager,
      logger,
      isActive: () => this.#active,
      groupStatusError: (groupId, requireGroupId) => this.#groupStatusError(groupId, requireGroupId),
    };
    this.#rebalance = new GroupRebalance(deps);
    this.#membership = new GroupMembership(deps, this.#rebalance);
    this.#offsets = new GroupOffsets(deps, this.#rebalance);
  }

  get isActive(): boolean {
    return this.#active;
  }

  startup(): void {
    this.#active = true;
    this.#offsets.startExpiry();
  }

  shutdown(): void {
    this.#active = false;
    this.#offsets.stopExpiry();
    this.manager.shutdown((g) => this.#rebalance.onGroupUnloaded(g));
  }

  partitionFor(groupId: string): number {
    return this.manager.partitionFor(groupId);
  }

  /** This broker became leader of an offsets partition: load it. */
  onElection(partition: number): Promise<void> {
    return this.manager.loadPartition(partition, (g) => this.#rebalance.onGroupLoaded(g));
  }

  /** This broker no longer leads an offsets partition: its groups go away here. */
  onResignation(partition: number): void {
    this.manager.unloadPartition(partition, (g) => this.#rebalance.onGroupUnloaded(g));
  }

  /** Errors every group request gets before looking at the group. */
  #groupStatusError(groupId: string, requireGroupId = true): number {
    if (!this.#active) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (requireGroupId && groupId.length === 0) return ErrorCode.INVALID_GROUP_ID;
    if (this.manager.isGroupLoading(groupId)) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    if (!this.manager.isGroupLocal(groupId)) return ErrorCode.NOT_COORDINATOR;
    return ErrorCode.NONE;
  }

  handleJoinGroup(req: JoinGroupRequest, ctx: JoinContext): Promise<JoinGroupResponse> {
    return this.#membership.handleJoinGroup(req, ctx);
  }

  handleSyncGroup(req: SyncGroupRequest): Promise<SyncGroupResponse> {
    return this.#membership.handleSyncGroup(req);
  }

  handleHeartbeat(groupId: string, memberId: string, generationId: number, groupInstanceId: string | null = null): number {
    return this.#membership.handleHeartbeat(groupId, memberId, generationId, groupInstanceId);
  }

  handleLeaveGroup(groupId: string, leaving: readonly MemberIdentity[]): { errorCode: number; members: MemberResponse[] } {
    return this.#membership.handleLeaveGroup(groupId, leaving);
  }

  handleCommitOffsets(req: OffsetCommitRequest): Promise<OffsetCommitResponseTopic[]> {
    return this.#offsets.handleCommitOffsets(req);
  }

  /** Committed offsets; `topics` null = everything the group committed. Unknown ones are -1 with no error. */
  handleFetchOffsets(groupId: string, topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): { errorCode: number; topics: OffsetFetchResponseTopic[] } {
    return this.#offsets.handleFetchOffsets(groupId, topics);
  }

  /** OffsetDelete (KIP-496): see GroupOffsets.handleDeleteOffsets. */
  handleDeleteOffsets(
    groupId: string,
    partitions: readonly { topic: string; partition: number }[],
  ): Promise<{ errorCode: number; partitions: { topic: string; partition: number; errorCode: number }[] }> {
    return this.#offsets.handleDeleteOffsets(groupId, partitions);
  }

  // ------------------------------------------------ DescribeGroups, ListGroups, DeleteGroups

  handleDescribeGroup(groupId: string): DescribedGroup {
    const base = { groupId, protocolType: '', protocolData: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
    const status = this.#groupStatusError(groupId, false);
    if (status !== ErrorCode.NONE) return { ...base, errorCode: status, groupState: '' };
    const group = this.manager.getGroup(groupId);
    if (!group) return { ...base, errorCode: ErrorCode.NONE, groupState: 'Dead' };
    const stable = group.is('Stable');
    return {
      errorCode: ErrorCode.NONE,
      groupId,
      groupState: group.state,
      protocolType: group.protocolType ?? '',
      protocolData: stable ? (group.protocolName ?? '') : '',
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberMetadata: stable && group.protocolName ? m.metadata(group.protocolName) : Buffer.alloc(0),
        memberAssignment: stable ? m.assignment : Buffer.alloc(0),
      })),
      authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    };
  }

  handleListGroups(): { errorCode: number; groups: ListedGroup[] } {
    if (!this.#active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groups: [] };
    const errorCode = this.manager.isLoading() ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE;
    const groups = this.manager.allGroups().filter((g) => !g.is('Dead')).map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '' }));
    return { errorCode, groups };
  }

  async handleDeleteGroups(groupIds: readonly string[]): Promise<{ groupId: string; errorCode: number }[]> {
    const results: { groupId: string; errorCode: number }[] = [];
    for (const groupId of groupIds) {
      const status = this.#groupStatusError(groupId);
      if (status !== ErrorCode.NONE) {
        results.push({ groupId, errorCode: status });
        continue;
      }
      const group = this.manager.getGroup(groupId);
      if (!group || group.is('Dead')) {
        results.push({ groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
        continue;
      }
      if (!group.is('Empty')) {
        results.push({ groupId, errorCode: ErrorCode.NON_EMPTY_GROUP });
        continue;
      }
      const code = await this.manager.removeGroupRecords(groupId, true, [...group.offsets.values()]);
      if (code === ErrorCode.NONE) {
        group.transitionTo('Dead');
        this.manager.removeGroup(groupId);
      }
      results.push({ groupId, errorCode: code });
    }
    return results;
  }
}
